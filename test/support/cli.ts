// Runs `bin/herald.js` as a person does, with the given environment only.
import { execFile } from 'node:child_process';

/** `onStdout`: called with everything printed so far, each time more is printed (to act on a line while it runs). */
export function herald(args: string[], env: Record<string, string>, onStdout?: (printed: string) => void): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, ['bin/herald.js', ...args], { env }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
    let printed = '';
    if (onStdout) child.stdout?.on('data', (chunk: Buffer | string) => onStdout((printed += String(chunk))));
  });
}
