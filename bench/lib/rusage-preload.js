// Preloaded with `node --import` when GNU time is absent: writes this process's resource usage
// (peak RSS in kB, CPU in µs) to BENCH_RUSAGE_FILE as it exits.
import { writeFileSync } from 'node:fs';

const file = process.env.BENCH_RUSAGE_FILE;
if (file) process.on('exit', () => writeFileSync(file, JSON.stringify(process.resourceUsage())));
