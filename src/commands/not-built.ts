import { UsageError } from '../errors.js';

/** Placeholder runner for a command whose implementation has not landed yet (exit 2). */
export async function notBuilt(name: string): Promise<number> {
  throw new UsageError(`'payops ${name}' is not built yet in this version`, {
    hint: 'see the project issues for its status',
  });
}
