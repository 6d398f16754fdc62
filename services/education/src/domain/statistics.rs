//! The statistics page's query: filters and keyset pages over completed results.

use portal_kit::ServiceError;

use super::date::Day;

pub const DEFAULT_PAGE_SIZE: i64 = 100;
pub const MAX_PAGE_SIZE: i64 = 1000;
/// The first page counts the matching results up to this many and, past it,
/// says "more than" this. The count walks the page's own index range, so a cap
/// keeps the first page's cost the same at any history's size (issue 23: an
/// exact count of a department's results at 1M took 0.2 s on SQLite and 0.4 s on
/// PostgreSQL per call); no educator pages through ten thousand results, and a
/// filter narrows them to an exact figure.
pub const COUNT_CAP: i64 = 10_000;
pub const MSG_BAD_PAGE_TOKEN: &str = "Некорректная ссылка на страницу результатов";
pub const MSG_DATES_REVERSED: &str = "Начальная дата периода позже конечной";

/// Where a page ends: the last result's completion instant and id. Results are
/// ordered newest first by (completed_at, id), so the next page is everything
/// strictly before it: a keyset, which stays fast however deep the page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageMark {
    pub completed_at: i64,
    pub id: i64,
}

impl PageMark {
    pub fn parse(token: &str) -> Result<Option<PageMark>, ServiceError> {
        if token.is_empty() {
            return Ok(None);
        }
        let bad = || ServiceError::invalid(MSG_BAD_PAGE_TOKEN);
        let (completed_at, id) = token.split_once('-').ok_or_else(bad)?;
        Ok(Some(PageMark {
            completed_at: completed_at.parse().map_err(|_| bad())?,
            id: id.parse().map_err(|_| bad())?,
        }))
    }

    pub fn token(self) -> String {
        format!("{}-{}", self.completed_at, self.id)
    }
}

/// Which results to list; `None` is any.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ResultFilter {
    pub test_id: Option<i64>,
    pub department_id: Option<i64>,
    pub user_id: Option<i64>,
    /// Completed at or after this instant (ms).
    pub from_millis: Option<i64>,
    /// Completed before this instant (ms).
    pub until_millis: Option<i64>,
    pub page_size: i64,
    pub after: Option<PageMark>,
}

pub struct FilterInput<'a> {
    pub test_id: i64,
    pub department_id: i64,
    pub user_id: i64,
    pub date_from: &'a str,
    pub date_to: &'a str,
    pub page_size: i32,
    pub page_token: &'a str,
}

impl ResultFilter {
    pub fn parse(input: FilterInput<'_>) -> Result<ResultFilter, ServiceError> {
        let positive = |id: i64| (id > 0).then_some(id);
        let from = Day::optional(input.date_from)?;
        let to = Day::optional(input.date_to)?;
        if let (Some(from), Some(to)) = (from, to)
            && from > to
        {
            return Err(ServiceError::invalid(MSG_DATES_REVERSED));
        }
        let page_size = match i64::from(input.page_size) {
            size if size <= 0 => DEFAULT_PAGE_SIZE,
            size => size.min(MAX_PAGE_SIZE),
        };
        Ok(ResultFilter {
            test_id: positive(input.test_id),
            department_id: positive(input.department_id),
            user_id: positive(input.user_id),
            from_millis: from.map(Day::start_millis),
            until_millis: to.map(Day::end_millis),
            page_size,
            after: PageMark::parse(input.page_token)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input<'a>(date_from: &'a str, date_to: &'a str, page_token: &'a str) -> FilterInput<'a> {
        FilterInput {
            test_id: 0,
            department_id: 3,
            user_id: -1,
            date_from,
            date_to,
            page_size: 5000,
            page_token,
        }
    }

    #[test]
    fn zero_means_any_and_the_page_size_is_bounded() {
        let filter = ResultFilter::parse(input("", "", "")).unwrap();
        assert_eq!(filter.test_id, None);
        assert_eq!(filter.department_id, Some(3));
        assert_eq!(filter.user_id, None);
        assert_eq!(filter.page_size, MAX_PAGE_SIZE);
    }

    #[test]
    fn a_date_range_covers_whole_days() {
        let filter = ResultFilter::parse(input("1970-01-02", "1970-01-02", "")).unwrap();
        assert_eq!(filter.from_millis, Some(86_400_000));
        assert_eq!(filter.until_millis, Some(172_800_000));
        assert_eq!(
            ResultFilter::parse(input("1970-01-03", "1970-01-02", ""))
                .unwrap_err()
                .to_string(),
            MSG_DATES_REVERSED
        );
    }

    #[test]
    fn page_tokens_round_trip_and_garbage_is_refused() {
        let mark = PageMark {
            completed_at: 1_700_000_000_000,
            id: 42,
        };
        assert_eq!(PageMark::parse(&mark.token()).unwrap(), Some(mark));
        assert_eq!(
            PageMark::parse("abc").unwrap_err().to_string(),
            MSG_BAD_PAGE_TOKEN
        );
    }
}
