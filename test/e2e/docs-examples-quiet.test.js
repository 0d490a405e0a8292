// The docs' examples whose load needs the host to themselves (marked quiet in
// test/helpers/docs-examples.js): run alone, after every other test (vitest.config.js).
import { docsExampleTests } from '../helpers/docs-examples.js';

docsExampleTests({ quiet: true });
