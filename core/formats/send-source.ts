// Where a send was made: its `source` (stored in sends.source, answered by the reports, a list
// filter, a Send object's status) and OneSignal's numeric `kind` for the same thing.

export const SEND_SOURCES = ['api', 'kubernetes', 'dashboard'] as const;
export type SendSource = (typeof SEND_SOURCES)[number];

/** OneSignal's `kind`: 0 Dashboard, 1 API, 3 Automated (for us: a Send applied in the cluster). */
export const SOURCE_OF_KIND: Readonly<Record<'0' | '1' | '3', SendSource>> = { '0': 'dashboard', '1': 'api', '3': 'kubernetes' };
/** The kinds as numbers, for the OpenAPI enum. */
export const SEND_KINDS = Object.keys(SOURCE_OF_KIND).map(Number);

export function isSendSource(text: string): text is SendSource {
  return (SEND_SOURCES as readonly string[]).includes(text);
}

/** The source of a `kind` query value, or undefined when it names none. */
export function sourceOfKind(kind: string): SendSource | undefined {
  return Object.hasOwn(SOURCE_OF_KIND, kind) ? SOURCE_OF_KIND[kind as keyof typeof SOURCE_OF_KIND] : undefined;
}
