// The entry point of the single executable (`npm run package`, sea/README.md): the CLI itself. The
// executable carries the Node it was built with, so there is no version to check (cmd/main.ts), and it
// starts with tracehop's V8 flags already set by its `execArgv`, so there is no re-exec (cmd/start.ts).
import { cli } from '../cmd/cli.ts';

cli(process.argv.slice(2));
