// Every shell example of README.md and docs/*.md is run or marked; the runnable ones run here but
// those marked quiet (docs-examples-quiet.test.js). How, and why bash: test/helpers/docs-examples.js.
import { docsExampleTests } from '../helpers/docs-examples.js';

docsExampleTests({ quiet: false });
