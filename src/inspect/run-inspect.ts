// `payops inspect FILE`: what payops sees in a file, before anything runs. Flags become options;
// cells.ts (--cells) or summary.ts gives the data, a view beside them writes it. Sends nothing:
// neither the profile nor the gateway is touched.
import { resolve } from 'node:path';
import type { Context } from '../context.js';
import { ExitCode, UsageError } from '../errors.js';
import { readOncePath } from '../tabular/pipe-input.js';
import { encodingAndMark } from '../tabular/read-as.js';
import { cells } from './cells.js';
import { writeCells } from './cells-view.js';

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
  const json = ctx.globals.output === 'json';
  const { encoding } = encodingAndMark(
    { ...(flags.encoding === undefined ? {} : { encoding: flags.encoding }) },
    undefined,
  );
  const path = await readOncePath(ctx, resolve(ctx.io.cwd, file), file, 'FILE');
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
    const events = cells({
      label: file,
      path,
      encoding,
      ...(flags.sheet === undefined ? {} : { sheet: flags.sheet }),
    });
    await writeCells(ctx.io.stdout, file, events, json ? 'json' : 'text');
    return ExitCode.ok;
  }
  throw new UsageError('payops inspect without --cells is not built yet');
}
