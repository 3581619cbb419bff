/**
 * A request template's questions turned into a form and back: the answers become `serialized_data`,
 * keyed by question label, checked by the very function the API checks them with
 * (checkAnswers in shared/domain/request.ts), so the form says what the API would say.
 */
import { checkAnswers, type InputType } from '../../../shared/domain/request.ts';

export type { InputType };

export interface Question {
  readonly label: string;
  readonly input_type: InputType;
  readonly is_required: boolean;
}

export interface RequestTemplate {
  readonly uuid: string;
  readonly api_url: string;
  readonly name: string;
  readonly description: string;
  readonly content_type: string;
  readonly is_active: boolean;
  readonly questions: readonly Question[];
  readonly form_data_layout: Readonly<Record<string, string>>;
}

export type Answers = Readonly<Record<string, string | boolean>>;

export function emptyAnswers(questions: readonly Question[]): Answers {
  return Object.fromEntries(questions.map((q) => [q.label, q.input_type === 'BooleanField' ? false : '']));
}

/** The `serialized_data` object, or the API's messages (each names its question's label). */
export function serializeAnswers(
  questions: readonly Question[],
  answers: Answers,
): { ok: true; data: Record<string, string | boolean> } | { ok: false; errors: string[] } {
  const trimmed = Object.fromEntries(Object.entries(answers).map(([label, value]) => [label, typeof value === 'string' ? value.trim() : value]));
  return checkAnswers(
    questions.map((q) => ({ label: q.label, inputType: q.input_type, isRequired: q.is_required })),
    trimmed,
  );
}
