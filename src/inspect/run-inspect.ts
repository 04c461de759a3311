// `payops inspect FILE`: what payops sees in a file, before anything runs. Flags become options;
// cells.ts (--cells) or summary.ts gives the data, a view beside them writes it. Sends nothing:
// the gateway is never touched, and of the settings only the profile's columns.<command>.
import { resolve } from 'node:path';
import { type Context, useColor } from '../context.js';
import { ExitCode, UsageError } from '../errors.js';
import { formatForFile } from '../output/format.js';
import { openTextSink } from '../output/sink.js';
import { readOncePath } from '../tabular/pipe-input.js';
import { DEFAULT_READ_AS, encodingAndMark, withColumns, withHidden } from '../tabular/read-as.js';
import { cells } from './cells.js';
import { writeCells } from './cells-view.js';
import { summaryJson, summaryText } from './inspect-view.js';
import type { InspectFor } from './summary.js';

export interface InspectFlags {
  sheet?: string;
  for?: string;
  columns?: string;
  headerRow?: number;
  rows?: number;
  cells?: boolean;
  encoding?: string;
  includeHidden?: boolean;
  skipHidden?: boolean;
}

export async function runInspect(ctx: Context, file: string, flags: InspectFlags): Promise<number> {
  const { out } = ctx.globals;
  // --out FILE: written as a whole file (a temporary one moved into place); JSON for *.json.
  const dest = out === undefined ? ctx.io.stdout : resolve(ctx.io.cwd, out);
  const json =
    ctx.globals.output === 'json' ||
    (ctx.globals.output === undefined && out !== undefined && formatForFile(out) === 'json');
  const { encoding } = encodingAndMark(
    { ...(flags.encoding === undefined ? {} : { encoding: flags.encoding }) },
    undefined,
  );
  if (flags.cells) {
    for (const [flag, set] of [
      ['--for', flags.for],
      ['--columns', flags.columns],
      ['--header-row', flags.headerRow],
      ['--rows', flags.rows],
    ] as const) {
      if (set !== undefined)
        throw new UsageError(`${flag} does not apply to --cells, which shows every cell`);
    }
  }
  const path = await readOncePath(ctx, resolve(ctx.io.cwd, file), file, 'FILE');
  if (flags.cells) {
    const events = cells({
      label: file,
      path,
      encoding,
      ...(flags.sheet === undefined ? {} : { sheet: flags.sheet }),
    });
    await writeCells(dest, file, events, json ? 'json' : 'text');
    return ExitCode.ok;
  }
  const { commandColumns, inspectFile } = await import('./summary.js');
  const command = (flags.for ?? 'refund') as InspectFor;
  // A mapping is checked as the command checks it: a column it does not read is a usage error.
  const known = command === 'payout' ? undefined : (await commandColumns(command)).wanted;
  // The profile's mapping for the command (columns.refund, …) is read as the command reads it, so
  // a file the run would read is not refused here; only that key of the settings is used.
  const profile = flags.columns === undefined ? await profileColumns(ctx, command) : undefined;
  const readAs = withColumns(withHidden({ ...DEFAULT_READ_AS }, flags), flags, known, profile);
  const summary = await inspectFile({
    label: file,
    path,
    for: command,
    forWhy: flags.for === undefined ? 'default' : 'given',
    encoding,
    rows: flags.rows ?? DEFAULT_ROWS,
    ...(readAs.columns === undefined ? {} : { columns: readAs.columns }),
    ...(readAs.columnsFrom === undefined ? {} : { columnsFrom: readAs.columnsFrom }),
    ...(readAs.headerRow === undefined ? {} : { headerRow: readAs.headerRow }),
    ...(readAs.hidden === undefined ? {} : { hidden: readAs.hidden }),
    ...(flags.sheet === undefined ? {} : { sheet: flags.sheet }),
  });
  const text = json
    ? summaryJson(summary)
    : summaryText(summary, {
        color: out === undefined && useColor(ctx.io),
        ...(ctx.io.stdout.columns === undefined || out !== undefined ? {} : { width: ctx.io.stdout.columns }),
      });
  const sink = openTextSink(dest);
  await sink.ready;
  await sink.write(text);
  await sink.end();
  return summary.refused === undefined ? ExitCode.ok : ExitCode.usage;
}

/** The profile's columns.<command>, if it has one: only that key is read (inspect needs no gateway settings). */
async function profileColumns(
  ctx: Context,
  command: InspectFor,
): Promise<{ key: string; text: string } | undefined> {
  const { readStoredConfig } = await import('../config/file.js');
  const { selectProfile } = await import('../config/resolve.js');
  const stored = readStoredConfig(ctx.io.env);
  const key = `columns.${command}` as const;
  const text = stored.profiles?.[selectProfile(ctx.globals, ctx.io.env, stored).name]?.[key];
  return text === undefined ? undefined : { key, text };
}

/** Rows shown as read without --rows. */
const DEFAULT_ROWS = 5;
