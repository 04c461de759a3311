import { readFileSync } from 'node:fs';

let cached: string | undefined;

/** The package version, read once from package.json beside dist/. */
export function readVersion(): string {
  cached ??= (
    JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
  ).version;
  return cached;
}

export function userAgent(): string {
  return `payops/${readVersion()} node/${process.versions.node}`;
}
