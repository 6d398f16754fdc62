//! Tests (тесты): settings, questions and answers, and the rules of spec §5.

use portal_kit::ServiceError;
use portal_kit::text::{Field, Shape};

use super::text::{MAX_DESCRIPTION_CHARS, MAX_TITLE_CHARS};

pub const MSG_TITLE_REQUIRED: &str = "Введите название теста";
pub const MSG_TITLE_TOO_LONG: &str = "Название теста не должно превышать 300 символов";
pub const MSG_DESCRIPTION_REQUIRED: &str = "Введите описание теста";
pub const MSG_DESCRIPTION_TOO_LONG: &str = "Описание теста не должно превышать 5000 символов";
pub const MSG_MUST_BE_POSITIVE: &str = "Значение должно быть больше 0";
pub const MSG_POINTS_EXCEED_QUESTIONS: &str =
    "Необходимое количество очков превышает количество вопросов в тесте";
pub const MSG_DRAWN_EXCEED_QUESTIONS: &str =
    "Количество вопросов после перемешивания не может превышать количество вопросов в тесте";
/// Beyond spec §5: a test whose pass mark exceeds the questions an attempt
/// draws could never be passed.
pub const MSG_POINTS_EXCEED_DRAWN: &str =
    "Необходимое количество очков превышает количество вопросов после перемешивания";
pub const MSG_QUESTION_REQUIRED: &str = "Введите текст вопроса";
pub const MSG_ANSWER_REQUIRED: &str = "Введите текст ответа";
pub const MSG_TEXT_TOO_LONG: &str = "Текст вопроса или ответа не должен превышать 2000 символов";
pub const MSG_ONE_CORRECT: &str = "У каждого вопроса должен быть ровно один правильный ответ";
pub const MSG_TWO_ANSWERS: &str = "У каждого вопроса должно быть не меньше двух ответов";
pub const MSG_TOO_MANY_QUESTIONS: &str = "В тесте не может быть больше 500 вопросов";
pub const MSG_TEST_NOT_FOUND: &str = "Тест не найден";

const MAX_QUESTION_CHARS: usize = 2_000;
const MAX_QUESTIONS: usize = 500;
const MAX_ANSWERS: usize = 20;

const TITLE: Field = Field {
    required: MSG_TITLE_REQUIRED,
    too_long: MSG_TITLE_TOO_LONG,
    hidden: "Название теста не должно содержать невидимых и управляющих символов",
    max_chars: MAX_TITLE_CHARS,
    shape: Shape::Line,
};
const DESCRIPTION: Field = Field {
    required: MSG_DESCRIPTION_REQUIRED,
    too_long: MSG_DESCRIPTION_TOO_LONG,
    hidden: "Описание теста не должно содержать невидимых и управляющих символов",
    max_chars: MAX_DESCRIPTION_CHARS,
    shape: Shape::Lines,
};
const QUESTION: Field = Field {
    required: MSG_QUESTION_REQUIRED,
    too_long: MSG_TEXT_TOO_LONG,
    hidden: "Текст вопроса не должен содержать невидимых и управляющих символов",
    max_chars: MAX_QUESTION_CHARS,
    shape: Shape::Lines,
};
const ANSWER: Field = Field {
    required: MSG_ANSWER_REQUIRED,
    too_long: MSG_TEXT_TOO_LONG,
    hidden: "Текст ответа не должен содержать невидимых и управляющих символов",
    max_chars: MAX_QUESTION_CHARS,
    shape: Shape::Lines,
};

/// An answer as written: `id` 0 is a new one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnswerDraft {
    pub id: i64,
    pub title: String,
    pub is_correct: bool,
}

/// A question as written, with exactly one correct answer: `id` 0 is a new one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuestionDraft {
    pub id: i64,
    pub title: String,
    pub answers: Vec<AnswerDraft>,
}

/// The settings of a test; each is above 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TestSettings {
    pub total_points_required: i64,
    pub number_of_questions: i64,
    pub number_of_tries: i64,
}

/// What creating or updating a test writes: every rule of spec §5 holds.
#[derive(Clone, Debug)]
pub struct TestDraft {
    pub title: String,
    pub description: String,
    pub settings: TestSettings,
    pub article_id: Option<i64>,
    pub questions: Vec<QuestionDraft>,
}

/// A question as a request carries it, before the rules are checked.
pub struct QuestionInput<'a> {
    pub id: i64,
    pub title: &'a str,
    pub answers: Vec<(i64, &'a str, bool)>,
}

impl TestDraft {
    pub fn parse(
        title: &str,
        description: &str,
        settings: [i32; 3],
        article_id: i64,
        questions: Vec<QuestionInput<'_>>,
    ) -> Result<TestDraft, ServiceError> {
        let title = TITLE.required(title)?;
        let description = DESCRIPTION.required(description)?;
        let [points, drawn, tries] = settings;
        if points <= 0 || drawn <= 0 || tries <= 0 {
            return Err(ServiceError::invalid(MSG_MUST_BE_POSITIVE));
        }
        if questions.len() > MAX_QUESTIONS {
            return Err(ServiceError::invalid(MSG_TOO_MANY_QUESTIONS));
        }
        let count = i32::try_from(questions.len()).unwrap_or(i32::MAX);
        if points > count {
            return Err(ServiceError::invalid(MSG_POINTS_EXCEED_QUESTIONS));
        }
        if drawn > count {
            return Err(ServiceError::invalid(MSG_DRAWN_EXCEED_QUESTIONS));
        }
        if points > drawn {
            return Err(ServiceError::invalid(MSG_POINTS_EXCEED_DRAWN));
        }
        let questions = questions
            .into_iter()
            .map(QuestionDraft::parse)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(TestDraft {
            title,
            description,
            settings: TestSettings {
                total_points_required: points.into(),
                number_of_questions: drawn.into(),
                number_of_tries: tries.into(),
            },
            article_id: (article_id > 0).then_some(article_id),
            questions,
        })
    }
}

impl QuestionDraft {
    fn parse(input: QuestionInput<'_>) -> Result<QuestionDraft, ServiceError> {
        let title = QUESTION.required(input.title)?;
        if input.answers.len() < 2 || input.answers.len() > MAX_ANSWERS {
            return Err(ServiceError::invalid(MSG_TWO_ANSWERS));
        }
        let answers = input
            .answers
            .into_iter()
            .map(|(id, title, is_correct)| {
                Ok(AnswerDraft {
                    id: id.max(0),
                    title: ANSWER.required(title)?,
                    is_correct,
                })
            })
            .collect::<Result<Vec<_>, ServiceError>>()?;
        if answers.iter().filter(|a| a.is_correct).count() != 1 {
            return Err(ServiceError::invalid(MSG_ONE_CORRECT));
        }
        Ok(QuestionDraft {
            id: input.id.max(0),
            title,
            answers,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn question(title: &str, correct: &[bool]) -> QuestionInput<'static> {
        let title: &'static str = Box::leak(title.to_owned().into_boxed_str());
        QuestionInput {
            id: 0,
            title,
            answers: correct.iter().map(|&c| (0, "Ответ", c)).collect(),
        }
    }

    fn questions(n: usize) -> Vec<QuestionInput<'static>> {
        (0..n).map(|_| question("Вопрос", &[true, false])).collect()
    }

    fn parse(settings: [i32; 3], questions: Vec<QuestionInput<'_>>) -> Result<TestDraft, String> {
        TestDraft::parse("Тест", "Описание", settings, 0, questions).map_err(|e| e.to_string())
    }

    #[test]
    fn the_spec_defaults_are_valid_with_ten_questions() {
        let draft = parse([10, 10, 3], questions(10)).unwrap();
        assert_eq!(draft.settings.number_of_tries, 3);
    }

    #[test]
    fn zero_is_refused_with_the_spec_message() {
        for settings in [[0, 1, 1], [1, 0, 1], [1, 1, 0], [-1, 1, 1]] {
            assert_eq!(
                parse(settings, questions(2)).unwrap_err(),
                MSG_MUST_BE_POSITIVE
            );
        }
    }

    #[test]
    fn points_or_drawn_questions_beyond_the_question_count_are_refused() {
        assert_eq!(
            parse([3, 2, 1], questions(2)).unwrap_err(),
            MSG_POINTS_EXCEED_QUESTIONS
        );
        assert_eq!(
            parse([1, 3, 1], questions(2)).unwrap_err(),
            MSG_DRAWN_EXCEED_QUESTIONS
        );
        assert_eq!(
            parse([3, 2, 1], questions(4)).unwrap_err(),
            MSG_POINTS_EXCEED_DRAWN
        );
    }

    #[test]
    fn a_question_needs_text_answers_with_text_and_exactly_one_correct() {
        assert_eq!(
            parse([1, 1, 1], vec![question(" ", &[true, false])]).unwrap_err(),
            MSG_QUESTION_REQUIRED
        );
        let mut blank_answer = question("Вопрос", &[true, false]);
        blank_answer.answers[1].1 = "";
        assert_eq!(
            parse([1, 1, 1], vec![blank_answer]).unwrap_err(),
            MSG_ANSWER_REQUIRED
        );
        assert_eq!(
            parse([1, 1, 1], vec![question("Вопрос", &[false, false])]).unwrap_err(),
            MSG_ONE_CORRECT
        );
        assert_eq!(
            parse([1, 1, 1], vec![question("Вопрос", &[true, true])]).unwrap_err(),
            MSG_ONE_CORRECT
        );
        assert_eq!(
            parse([1, 1, 1], vec![question("Вопрос", &[true])]).unwrap_err(),
            MSG_TWO_ANSWERS
        );
    }
}
