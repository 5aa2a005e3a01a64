/**
 * The v4 query-string language as a PEG grammar. It mirrors the pyparsing grammar of aiida-core's
 * `Utils.parse_query_string`, including the order in which alternatives are tried (PEG's ordered choice
 * behaves like pyparsing's MatchFirst here), so the same strings are accepted and refused.
 */
export const QUERY_STRING_GRAMMAR = String.raw`
Query
  = _ first:Field? rest:(_ "&" _ f:Field { return f; })* _ "&"? _ End { return (first ? [first] : []).concat(rest); }

End "end of the query string"
  = !.

Field
  = ListField / OrderbyField / SingleField

ListField
  = key:Key _ op:("=in=" / "=notin=") _ value:ValueList { return { key, op, value }; }

OrderbyField
  = key:Key _ op:"=" _ value:ValueList { return { key, op, value }; }

SingleField
  = key:Key _ op:Operator _ value:Value { return { key, op, value }; }

Key "a field name"
  = $([A-Za-z_] [A-Za-z0-9_-]*)

Operator "an operator (=, !=, >, <, >=, <=, =in=, =notin=, =like=, =ilike=)"
  = "=like=" / "=ilike=" / "=in=" / "=notin=" / "=" / "!=" / ">=" / ">" / "<=" / "<"

ValueList
  = head:Value tail:(_ "," _ v:Value { return v; })+ (_ ",")? { return [head].concat(tail); }

Value "a value (a quoted string, a number, true/false, a date-time or a name)"
  = QuotedString / Boolean / Datetime / Number / Word

QuotedString
  = '"' chars:('""' { return '"'; } / [^"])* '"' { return chars.join(''); }

Boolean
  = "true" { return true; } / "false" { return false; }

Datetime
  = text:$(Date Time? Shift?) WordEnd { return options.makeDatetime(text, location()); }

Date = $([0-9][0-9][0-9][0-9] "-" [0-9][0-9] "-" [0-9][0-9])
Time = $("T" [0-9][0-9] (":" [0-9][0-9])? (":" [0-9][0-9])?)
Shift = $([+-] [0-9][0-9] (":" [0-9][0-9])?)

// pyparsing's WordEnd: the date-time must be followed by "&", the end, or a character that is not printable ASCII.
WordEnd = ![\x21-\x25\x27-\x7e]

Number
  = text:$([+-]? ([0-9]+ ("." [0-9]*)? / "." [0-9]+) ([eE] [+-]? [0-9]+)?) { return options.makeNumber(text); }

Word
  = $([+-]? [A-Za-z_] [A-Za-z0-9_-]*)

_ = [ \t\r\n]*
`;
