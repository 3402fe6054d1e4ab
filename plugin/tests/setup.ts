// Every test file gets Obsidian's DOM helpers, as the app's renderer has them.
import { installDomHelpers } from "./__mocks__/dom";

installDomHelpers(window);
