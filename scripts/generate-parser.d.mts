export declare const GRAMMAR: string;
export declare const GENERATED: string;
export declare const FILTER_GRAMMAR: string;
export declare const FILTER_GENERATED: string;
export declare function parserSource(grammar?: string): string;
