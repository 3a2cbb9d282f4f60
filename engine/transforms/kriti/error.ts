import type { Span } from './ast.ts';

/** The kinds of Kriti failure, spelled as v2 renders them in `error_code`. */
export type KritiErrorCode = 'Parse Error' | 'Type Error' | 'Path Lookup Error' | 'Range Error' | 'Function Error';

/**
 * A parse or evaluation failure with the template span it concerns. The
 * message ends with the position (`at line 2, column 7`) so a user who only
 * sees the message still finds the place.
 */
export class KritiError extends Error {
  readonly code: KritiErrorCode;
  readonly span: Span;
  /** The message without the position suffix. */
  readonly detail: string;

  constructor(code: KritiErrorCode, detail: string, span: Span) {
    super(`${code}: ${detail} at line ${span.start.line}, column ${span.start.column}`);
    this.name = 'KritiError';
    this.code = code;
    this.span = span;
    this.detail = detail;
  }

  /** The v2 wire shape of a template error: `{error_code, message, source_position}`. */
  toJSON(): { error_code: KritiErrorCode; message: string; source_position: SourcePosition } {
    return {
      error_code: this.code,
      message: this.message,
      source_position: {
        start_line: this.span.start.line,
        start_column: this.span.start.column,
        end_line: this.span.end.line,
        end_column: this.span.end.column,
      },
    };
  }
}

export interface SourcePosition {
  start_line: number;
  start_column: number;
  end_line: number;
  end_column: number;
}
