// The compose form: the REST body it stands for, where each validation issue goes (by its field),
// and inputs bounded by the rules' own limits, through to the longest value each accepts.
import { expect } from 'chai';
import { ValidationError } from '../../../core/errors.js';
import { LIMITS } from '../../../core/validation/limits.js';
import { validateSendRequest } from '../../../core/validation/validate-send.js';
import { toString } from '../html.js';
import type { DashboardSession } from '../session.js';
import { composePage, type ComposeForm } from './compose.js';
import { areaOf as areaIn, bodyFromForm as bodyOf, COMPOSE_SECTIONS } from '../form/forms.js';
import { sendAfterIn } from '../form/delivery-fields.js';

const bodyFromForm = (form: ComposeForm, appId: string) => bodyOf(COMPOSE_SECTIONS, form, { app_id: appId });
const areaOf = (field: string) => areaIn(COMPOSE_SECTIONS, field);

const APP = '5b0b6f2e-0f55-4c3c-9d0b-1f0a0e6f6c11';
const SESSION = { csrf: 'token', scope: 'send', appName: 'Shop' } as DashboardSession;

describe('dashboard compose', () => {
  const app = '5b0b6f2e-0f55-4c3c-9d0b-1f0a0e6f6c11';

  it('builds the REST body: languages, the chosen target only, send_after as UTC, throttle as a number', () => {
    const body = bodyFromForm({
      lang_0: 'en', content_0: 'Hello', heading_0: 'Shop', lang_1: 'fr', content_1: 'Bonjour', lang_2: '', content_2: 'ignored',
      target: 'external_ids', ids: 'u1, u2\nu3', segment: 'Subscribed Users', send_after: '2026-11-30T09:00', throttle: '600',
    }, app);
    expect(body).to.deep.equal({
      app_id: app, contents: { en: 'Hello', fr: 'Bonjour' }, headings: { en: 'Shop' },
      include_external_ids: ['u1', 'u2', 'u3'], send_after: '2026-11-30T09:00Z', throttle_rate_per_minute: 600,
    });
  });

  it('sends the ticked segments in the page order (a single segment before them, duplicates once, none an empty list), and last-active without delivery_time_of_day', () => {
    expect(bodyFromForm({ target: 'segment', segment_12: 'Beta', segment_3: 'Gold' }, app).included_segments).to.deep.equal(['Gold', 'Beta']);
    expect(bodyFromForm({ target: 'segment', segment: 'Gold', segment_3: 'Gold', segment_4: 'Beta' }, app).included_segments).to.deep.equal(['Gold', 'Beta']);
    expect(bodyFromForm({ target: 'segment' }, app).included_segments).to.deep.equal([]);
    const lastActive = bodyFromForm({ target: 'segment', segment_0: 'All', delayed_option: 'last-active', send_after: '2026-11-30T09:00' }, app);
    expect(lastActive).to.include({ delayed_option: 'last-active', send_after: '2026-11-30T09:00Z' }).and.not.have.property('delivery_time_of_day');
  });

  it('reads the time in the chosen time zone, and leaves an unknown zone for the send_after rule to refuse', () => {
    // The instant, written with the zone's offset there: its clock time is the one typed (per-time-zone delivery reads it).
    expect(bodyFromForm({ target: 'segment', segment: 'All', send_after: '2026-11-30T09:00', send_tz: 'Europe/Paris' }, app).send_after).to.equal('2026-11-30T09:00:00+01:00');
    expect(bodyFromForm({ target: 'segment', segment: 'All', send_after: '2026-07-01T09:00', send_tz: 'America/New_York' }, app).send_after).to.equal('2026-07-01T09:00:00-04:00');
    expect(new Date(sendAfterIn('2026-07-01T09:00', 'America/New_York')).toISOString()).to.equal('2026-07-01T13:00:00.000Z');
    expect(sendAfterIn('2026-07-01T09:00', 'Asia/Calcutta')).to.equal('2026-07-01T09:00:00+05:30'); // a half-hour offset
    expect(bodyFromForm({ target: 'segment', segment: 'All', send_after: '2026-11-30T09:00', send_tz: 'Mars/Base' }, app).send_after).to.equal('2026-11-30T09:00 Mars/Base');
  });

  it('passes an impossible local time in a zone on as written, so the REST rule refuses it as it does in UTC', () => {
    const now = new Date('2026-02-01T00:00:00Z');
    const refusal = (sendAfter: string) => {
      try {
        validateSendRequest({ body: { app_id: app, contents: { en: 'x' }, included_segments: ['All'], send_after: sendAfter }, app: { id: app, bundleId: 'com.example.shop', segmentNames: [] }, now });
      } catch (error) {
        return (error as ValidationError).issues.find((i) => areaOf(i.field) === 'send_after')?.message;
      }
      return undefined;
    };
    for (const local of ['2026-02-30T10:00', '2026-02-10T24:00', '2026-02-10T99:00', '2026-02-10T10:60']) {
      const inParis = bodyFromForm({ target: 'segment', segment: 'All', send_after: local, send_tz: 'Europe/Paris' }, app).send_after as string;
      expect(inParis, local).to.equal(`${local} Europe/Paris`);
      const inUtc = bodyFromForm({ target: 'segment', segment: 'All', send_after: local, send_tz: 'UTC' }, app).send_after as string;
      expect(refusal(inParis), local).to.be.a('string').and.equal(refusal(inUtc));
    }
  });

  it('builds the image, the button, the data rows, excluded segments, filters and per-time-zone delivery', () => {
    const body = bodyFromForm({
      lang_0: 'en', content_0: 'Hi', image: 'https://example.com/a.png', button_id: 'open', button_text: 'Open',
      data_key_0: 'sku', data_value_0: 'A1', data_key_1: '', data_value_1: 'dropped', data_key_2: 'note', data_value_2: 'a\r\nb',
      target: 'filters', filters: '[{"field": "tag", "key": "plan", "relation": "=", "value": "gold"}]', exclude_0: 'Inactive Users', exclude_4: 'Churned',
      send_after: '2026-11-30T09:00', send_tz: 'UTC', delayed_option: 'timezone',
    }, app);
    expect(body).to.deep.include({
      big_picture: 'https://example.com/a.png', buttons: [{ id: 'open', text: 'Open' }], data: { sku: 'A1', note: 'a\nb' },
      filters: [{ field: 'tag', key: 'plan', relation: '=', value: 'gold' }], excluded_segments: ['Inactive Users', 'Churned'],
      send_after: '2026-11-30T09:00Z', delayed_option: 'timezone',
    });
    expect(body).to.not.have.any.keys('included_segments', 'tag');
    // One half of the button sends it, so the rule names the missing half.
    expect(bodyFromForm({ button_text: 'Open', target: 'segment' }, app).buttons).to.deep.equal([{ id: '', text: 'Open' }]);
    // Filters that are not JSON: the sentence names the field, placed with the audience.
    expect(() => bodyFromForm({ target: 'filters', filters: '[{' }, app)).to.throw(ValidationError).with.property('issues').that.deep.equals([
      { field: 'filters', message: 'filters is not JSON: write it as [{"field": "tag", "key": "plan", "relation": "=", "value": "gold"}, {"operator": "OR"}, {"field": "language", "relation": "=", "value": "fr"}].' },
    ]);
    expect(areaOf('filters[0].key')).to.equal('audience');
    expect(areaOf('excluded_segments[1]')).to.equal('audience');
  });

  it("maps the iOS fields to OneSignal's wire names; a silent push may go without text", () => {
    const body = bodyFromForm({
      lang_0: 'en', content_0: 'Hi', subtitle_0: 'Sub', name: 'Promo', target: 'segment', segment: 'All', ios_sound: 'chime.caf',
      ios_badgeType: 'SetTo', ios_badgeCount: '3', ttl: '60', ios_interruption_level: 'time_sensitive',
    }, app);
    expect(body).to.include({ name: 'Promo', ios_sound: 'chime.caf', ios_badgeType: 'SetTo', ios_badgeCount: 3, ttl: 60, ios_interruption_level: 'time_sensitive' });
    expect(body.subtitle).to.deep.equal({ en: 'Sub' });
    expect(bodyFromForm({ lang_0: 'en', ios_badgeType: 'None', ios_badgeCount: '3', target: 'segment', segment: 'All' }, app)).to.not.have.any.keys('ios_badgeType', 'ios_badgeCount');
    const silent = bodyFromForm({ lang_0: 'en', content_0: '', content_available: 'on', target: 'segment', segment: 'All' }, app);
    expect(silent).to.include({ content_available: true }).and.not.have.property('contents');
    expect(bodyFromForm({ target: 'segment', segment: 'All', ttl: '1h' }, app)).to.include({ ttl: '1h' });
  });

  it("maps the Android fields to OneSignal's wire names and the platform choice to isIos / isAndroid (both: neither flag, from a template: both true)", () => {
    const android = { android_channel_id: 'news', small_icon: 'ic_bell', android_accent_color: 'FF0099CC', android_sound: 'chime', android_group: 'scores' };
    const base = { lang_0: 'en', content_0: 'Hi', target: 'segment', segment: 'All' };
    expect(bodyFromForm({ ...base, ...android, platforms: 'android' }, app)).to.deep.include({ ...android, isIos: false }).and.not.have.property('isAndroid');
    expect(bodyFromForm({ ...base, platforms: 'ios' }, app)).to.include({ isAndroid: false }).and.not.have.property('isIos');
    expect(bodyFromForm({ ...base, platforms: '' }, app)).to.not.have.any.keys('isIos', 'isAndroid', ...Object.keys(android));
    expect(bodyFromForm({ ...base, platforms: 'something' }, app)).to.not.have.any.keys('isIos', 'isAndroid');
    const fromTemplate = (platforms: string) => bodyFromForm({ ...base, template_id: 'T', platforms }, app);
    expect([fromTemplate(''), fromTemplate('ios'), fromTemplate('android')].map((b) => [b.isIos, b.isAndroid])).to.deep.equal([[true, true], [true, false], [false, true]]);
    // Each refusal of android-options.ts goes under the field it names; both flags false (only by hand) under the choice.
    const refused = (form: ComposeForm) => {
      try {
        validateSendRequest({ body: bodyFromForm({ ...base, ...form }, APP), app: { id: APP, bundleId: 'com.example.shop', segmentNames: [] }, now: new Date() });
        return [];
      } catch (error) {
        return (error as ValidationError).issues.map((i) => [areaOf(i.field), i.message]);
      }
    };
    expect(refused({ android_accent_color: '0099CC' })).to.deep.equal([['android_accent_color', 'android_accent_color must be 8 hex digits, alpha then red, green and blue (AARRGGBB), such as FF0099CC.']]);
    expect(refused({ android_accent_color: 'FF0099CC' })).to.deep.equal([]);
    expect(refused({ android_channel_id: 'a', existing_android_channel_id: 'b' }).map(([area]) => area)).to.deep.equal(['existing_android_channel_id']);
    expect(areaOf('isAndroid')).to.equal('platforms');
    expect(areaOf('isIos')).to.equal('platforms');
  });

  it('passes a non-number throttle through, so the REST rule and message apply', () => {
    expect(bodyFromForm({ target: 'segment', segment: 'All', throttle: 'abc' }, app)).to.include({ throttle_rate_per_minute: 'abc' });
  });

  it('builds a tag target, leaving out an empty value', () => {
    expect(bodyFromForm({ target: 'tag', tag_key: 'plan', tag_relation: 'exists', tag_value: '' }, app).tag).to.deep.equal({ key: 'plan', relation: 'exists' });
  });

  it('puts each issue in the area of the field it names, whatever its sentence says', () => {
    const areas: [string, string][] = [
      ['contents', 'contents'], ['contents.en', 'contents'], ['headings.fr', 'contents'], ['subtitle.en', 'contents'],
      ['send_after', 'send_after'], ['delivery_time_of_day', 'send_after'], ['throttle_rate_per_minute', 'throttle'],
      ['included_segments[0]', 'audience'], ['tag.value', 'audience'], ['include_subscription_ids[3]', 'audience'],
      ['ios_badgeCount', 'badge'], ['name', 'name'], ['url', 'url'], ['content_available', 'content_available'], ['', 'form'],
      ['big_picture', 'image'], ['ios_attachments', 'image'], ['buttons[0].text', 'button'], ['data', 'data'], ['apns_alert.loc-key', 'apns_alert'], ['delayed_option', 'send_after'],
      ['__proto__', 'form'], ['constructor', 'form'],
    ];
    for (const [field, area] of areas) expect(areaOf(field), field).to.equal(area);
    // A sentence that names another field (a background push lists contents and ios_sound) stays
    // with the field of its issue.
    const page = toString(composePage(SESSION, 'Shop', ['Subscribed Users'], {}, [
      { field: 'content_available', message: 'It cannot carry contents, headings or ios_sound.' },
      { field: 'url', message: 'url is longer than 500 characters.' },
    ]));
    expect(page).to.match(/<ul class="field-errors" id="content_available-errors" role="alert"><li>It cannot carry contents, headings or ios_sound.<\/li><\/ul>/);
    expect(page).to.match(/id="url-errors" role="alert"><li>url is longer than 500 characters.<\/li>/);
    expect(page).to.not.contain('id="contents-errors"');
  });

  describe('each input bounded by its rule: maxlength is the limit, the limit is accepted, one more refused', () => {
    const rendered = toString(composePage(SESSION, 'Shop', ['Subscribed Users'], {}));
    /** The maxlength the page gives the input (or textarea) named `name`. */
    const maxlength = (name: string) => {
      const tag = new RegExp(`<(?:input|textarea)[^>]*\\bname="${name}"[^>]*>`).exec(rendered)?.[0];
      return Number(/\bmaxlength="(\d+)"/.exec(tag ?? '')?.[1]);
    };
    const base: ComposeForm = { lang_0: 'en', content_0: 'Hi', target: 'segment', segment: 'Subscribed Users' };
    // [input, the rule's limit, the form with a value of n characters in it, the area of its issue]
    const cases: [string, number, (n: number) => ComposeForm, string][] = [
      ['name', LIMITS.name, (n) => ({ name: 'n'.repeat(n) }), 'name'],
      ['heading_0', LIMITS.headings, (n) => ({ heading_0: 'h'.repeat(n) }), 'contents'],
      ['subtitle_0', LIMITS.subtitle, (n) => ({ subtitle_0: 's'.repeat(n) }), 'contents'],
      ['content_0', LIMITS.contents, (n) => ({ content_0: 'c'.repeat(n) }), 'contents'],
      ['tag_key', LIMITS.tag, (n) => ({ target: 'tag', tag_key: 'k'.repeat(n), tag_relation: 'exists' }), 'audience'],
      ['tag_value', LIMITS.tag, (n) => ({ target: 'tag', tag_key: 'plan', tag_relation: '=', tag_value: 'v'.repeat(n) }), 'audience'],
      ['ios_sound', LIMITS.ios_sound, (n) => ({ ios_sound: 'a'.repeat(n) }), 'ios_sound'],
      ['url', LIMITS.url, (n) => ({ url: `https://example.com/${'p'.repeat(n - 20)}` }), 'url'],
      ['image', LIMITS.image_url, (n) => ({ image: `https://example.com/${'p'.repeat(n - 20)}` }), 'image'],
      ['button_text', LIMITS.button, (n) => ({ button_id: 'b', button_text: 't'.repeat(n) }), 'button'],
      ['button_id', LIMITS.button, (n) => ({ button_id: 'i'.repeat(n), button_text: 'Open' }), 'button'],
      ['ios_category', LIMITS.ios_category, (n) => ({ ios_category: 'c'.repeat(n) }), 'ios_category'],
      ['thread_id', LIMITS.thread_id, (n) => ({ thread_id: 't'.repeat(n) }), 'thread_id'],
      ['summary_arg', LIMITS.summary_arg, (n) => ({ summary_arg: 's'.repeat(n) }), 'summary_arg'],
      ['target_content_identifier', LIMITS.target_content_identifier, (n) => ({ target_content_identifier: 't'.repeat(n) }), 'target_content_identifier'],
      ...(['android_channel_id', 'existing_android_channel_id', 'small_icon', 'android_sound', 'android_group'] as const).map(
        (f): [string, number, (n: number) => ComposeForm, string] => [f, LIMITS.android_text, (n) => ({ [f]: 'a'.repeat(n) }), f],
      ),
    ];
    const refusals = (form: ComposeForm) => {
      try {
        validateSendRequest({ body: bodyFromForm({ ...base, ...form }, APP), app: { id: APP, bundleId: 'com.example.shop', segmentNames: [] }, now: new Date() });
        return [];
      } catch (error) {
        expect(error).to.be.instanceOf(ValidationError);
        return (error as ValidationError).issues;
      }
    };
    for (const [input, limit, form, area] of cases) {
      it(`${input}: maxlength ${limit}`, () => {
        expect(form(limit)[input], 'the case fills its input').to.have.length(limit);
        expect(maxlength(input)).to.equal(limit);
        expect(refusals(form(limit))).to.deep.equal([]);
        const refused = refusals(form(limit + 1));
        expect(refused.map((i) => areaOf(i.field))).to.deep.equal([area]);
      });
    }

    it('data: maxlength is where the rule cuts (never refused), so the longest key and value go out whole', () => {
      expect([maxlength('data_key_0'), maxlength('data_value_0')]).to.deep.equal([LIMITS.data_key, LIMITS.data_value]);
      const key = 'k'.repeat(LIMITS.data_key);
      const value = 'v'.repeat(LIMITS.data_value - 100); // the whole data within the 4 KB payload
      const request = validateSendRequest({ body: bodyFromForm({ ...base, data_key_0: key, data_value_0: value }, APP), app: { id: APP, bundleId: 'com.example.shop', segmentNames: [] }, now: new Date() });
      expect(request.data).to.deep.equal({ [key]: value });
    });

    it('numbers: room for the widest accepted value; the largest is accepted, one more refused', () => {
      // [input, the widest accepted value as typed, the largest accepted value, the form with n]
      const numbers: [string, string, number, (n: number) => ComposeForm][] = [
        ['ttl', String(LIMITS.ttl_seconds), LIMITS.ttl_seconds, (n) => ({ ttl: String(n) })],
        ['throttle', String(LIMITS.throttle_max), LIMITS.throttle_max, (n) => ({ throttle: String(n) })],
        ['ios_badgeCount', String(LIMITS.badge_min), LIMITS.badge_max, (n) => ({ ios_badgeType: 'Increase', ios_badgeCount: String(n) })],
        ['summary_arg_count', String(2_147_483_647), 2_147_483_647, (n) => ({ summary_arg: 'x', summary_arg_count: String(n) })],
      ];
      for (const [input, widest, largest, form] of numbers) {
        expect(maxlength(input), input).to.equal(widest.length);
        expect(refusals(form(largest)), input).to.deep.equal([]);
        expect(refusals(form(largest + 1)), input).to.have.length(1);
      }
      expect(refusals({ ios_badgeType: 'Increase', ios_badgeCount: String(LIMITS.badge_min) })).to.deep.equal([]);
    });
  });
});

