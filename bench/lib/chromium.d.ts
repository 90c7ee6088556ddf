/** The types of chromium.js, for the TypeScript tests that import it. */
import type { Browser } from 'playwright-core';

export declare const CHROMIUM: string;
export declare const CHROMIUM_ARGS: readonly string[];
export declare function launchChromium(): Promise<Browser>;
