export declare const GRAMMAR: string;
export declare const GENERATED: string;
export declare function parserSource(): string;
