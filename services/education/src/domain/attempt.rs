//! Taking a test: drawing an attempt's questions, and checking and scoring the
//! answers handed in.

use std::collections::{HashMap, HashSet};

use portal_kit::ServiceError;
use rand::seq::SliceRandom;

pub const MSG_NO_TRIES_LEFT: &str = "Вы исчерпали все попытки для прохождения теста";
pub const MSG_ATTEMPT_COMPLETED: &str = "Эта попытка уже завершена";
pub const MSG_ATTEMPT_NOT_FOUND: &str = "Попытка не найдена";
pub const MSG_DUPLICATE_ANSWER: &str = "На каждый вопрос можно дать только один ответ";
pub const MSG_FOREIGN_QUESTION: &str = "Ответ дан на вопрос, которого нет в этой попытке теста";
pub const MSG_FOREIGN_ANSWER: &str = "Выбранный ответ не относится к своему вопросу";
pub const MSG_NO_OPEN_ATTEMPT: &str =
    "Нет начатой попытки прохождения теста: начните тест, чтобы получить вопросы";
/// The reason code of [`MSG_NO_OPEN_ATTEMPT`], for clients that start one.
pub const REASON_NO_OPEN_ATTEMPT: &str = "no-open-attempt";
pub const MSG_EMPTY_TEST: &str = "В тесте пока нет вопросов";
pub const MSG_ATTEMPT_EXPIRED: &str =
    "Время на прохождение попытки истекло: результат не засчитан, начните тест заново";

/// How long an attempt stays open after its start: long enough for any test a
/// hospital gives (tens of questions), short enough that questions seen once
/// cannot be researched at leisure and answered days later. An attempt left
/// unfinished past it expires: it cannot be completed, and it remains a try
/// taken (it was consumed at the start so that the questions are never seen
/// for free, and letting an abandoned attempt give its try back would reopen
/// exactly that).
pub const ATTEMPT_TIME_LIMIT_MS: i64 = 60 * 60 * 1000;

/// The instant (Unix ms) an attempt started at `started_at` expires.
pub fn expires_at(started_at: i64) -> i64 {
    started_at.saturating_add(ATTEMPT_TIME_LIMIT_MS)
}

/// Whether an attempt started at `started_at` can no longer be completed at `now`.
pub fn is_expired(started_at: i64, now: i64) -> bool {
    now >= expires_at(started_at)
}

/// Whether a test drawing `number_of_questions` per attempt shows every one of
/// its `questions`: then nothing is chosen for an attempt, and a hand-in with
/// no attempt started may take its try there and then (spec §7's client sends
/// only `complete-test`).
pub fn shows_every_question(number_of_questions: i64, questions: usize) -> bool {
    i64::try_from(questions).is_ok_and(|count| number_of_questions >= count)
}

/// Up to `count` question ids for a new attempt: questions the learner has not
/// seen before come first, each group in random order, and the drawn set is
/// shuffled again so seen and unseen questions mix.
pub fn draw(questions: &[i64], seen: &HashSet<i64>, count: usize) -> Vec<i64> {
    let mut rng = rand::thread_rng();
    let (mut unseen, mut again): (Vec<i64>, Vec<i64>) =
        questions.iter().copied().partition(|id| !seen.contains(id));
    unseen.shuffle(&mut rng);
    again.shuffle(&mut rng);
    let mut drawn: Vec<i64> = unseen.into_iter().chain(again).take(count).collect();
    drawn.shuffle(&mut rng);
    drawn
}

/// Answers in random order, so their position tells nothing.
pub fn shuffled<T>(mut answers: Vec<T>) -> Vec<T> {
    answers.shuffle(&mut rand::thread_rng());
    answers
}

/// The answers handed in: each question at most once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Submission(Vec<(i64, i64)>);

impl Submission {
    pub fn parse(pairs: impl IntoIterator<Item = (i64, i64)>) -> Result<Submission, ServiceError> {
        let pairs: Vec<(i64, i64)> = pairs.into_iter().collect();
        let mut questions = HashSet::new();
        if pairs
            .iter()
            .any(|(question, _)| !questions.insert(*question))
        {
            return Err(ServiceError::invalid(MSG_DUPLICATE_ANSWER));
        }
        Ok(Submission(pairs))
    }

    pub fn question_ids(&self) -> impl Iterator<Item = i64> + '_ {
        self.0.iter().map(|(question, _)| *question)
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// For each question of a test: its answers' ids and which one is correct.
pub type AnswerKey = HashMap<i64, (Vec<i64>, i64)>;

/// One question of an attempt as scored: the answer chosen (if any) and
/// whether it was the correct one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Marked {
    pub question_id: i64,
    pub answer_id: Option<i64>,
    pub is_correct: bool,
}

/// Scores `submission` for an attempt on `asked` questions: every answer must be
/// to an asked question and one of that question's answers.
pub fn mark(
    asked: &[i64],
    key: &AnswerKey,
    submission: &Submission,
) -> Result<Vec<Marked>, ServiceError> {
    let chosen: HashMap<i64, i64> = submission.0.iter().copied().collect();
    let asked_set: HashSet<i64> = asked.iter().copied().collect();
    for (question, answer) in &submission.0 {
        if !asked_set.contains(question) {
            return Err(ServiceError::invalid(MSG_FOREIGN_QUESTION));
        }
        match key.get(question) {
            Some((answers, _)) if answers.contains(answer) => {}
            _ => return Err(ServiceError::invalid(MSG_FOREIGN_ANSWER)),
        }
    }
    Ok(asked
        .iter()
        .map(|question| {
            let answer_id = chosen.get(question).copied();
            let correct = key.get(question).map(|(_, correct)| *correct);
            Marked {
                question_id: *question,
                answer_id,
                is_correct: answer_id.is_some() && answer_id == correct,
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> AnswerKey {
        HashMap::from([
            (1, (vec![10, 11], 11)),
            (2, (vec![20, 21], 20)),
            (3, (vec![30, 31], 30)),
        ])
    }

    #[test]
    fn unseen_questions_are_drawn_first() {
        let seen = HashSet::from([1, 2, 3]);
        for _ in 0..20 {
            let mut drawn = draw(&[1, 2, 3, 4, 5], &seen, 2);
            drawn.sort_unstable();
            assert_eq!(drawn, [4, 5]);
        }
        assert_eq!(draw(&[1, 2, 3], &seen, 5).len(), 3);
    }

    #[test]
    fn a_test_shows_every_question_when_it_draws_as_many_as_it_has() {
        assert!(shows_every_question(3, 3));
        assert!(shows_every_question(10, 3), "fewer questions than drawn");
        assert!(!shows_every_question(2, 3), "a subset is drawn");
    }

    #[test]
    fn an_attempt_expires_when_its_time_limit_is_over() {
        let started = 1_000_000;
        assert!(!is_expired(started, started));
        assert!(!is_expired(started, started + ATTEMPT_TIME_LIMIT_MS - 1));
        assert!(is_expired(started, started + ATTEMPT_TIME_LIMIT_MS));
    }

    #[test]
    fn a_question_answered_twice_is_refused() {
        assert_eq!(
            Submission::parse([(1, 10), (1, 11)])
                .unwrap_err()
                .to_string(),
            MSG_DUPLICATE_ANSWER
        );
    }

    #[test]
    fn correct_answers_score_and_unanswered_ones_do_not() {
        let submission = Submission::parse([(1, 11), (2, 21)]).unwrap();
        let marked = mark(&[1, 2, 3], &key(), &submission).unwrap();
        let correct: Vec<bool> = marked.iter().map(|m| m.is_correct).collect();
        assert_eq!(correct, [true, false, false]);
        assert_eq!(marked[2].answer_id, None);
    }

    #[test]
    fn answers_outside_the_attempt_or_their_question_are_refused() {
        let other_question = Submission::parse([(3, 30)]).unwrap();
        assert_eq!(
            mark(&[1, 2], &key(), &other_question)
                .unwrap_err()
                .to_string(),
            MSG_FOREIGN_QUESTION
        );
        let other_answer = Submission::parse([(1, 20)]).unwrap();
        assert_eq!(
            mark(&[1, 2], &key(), &other_answer)
                .unwrap_err()
                .to_string(),
            MSG_FOREIGN_ANSWER
        );
    }
}
