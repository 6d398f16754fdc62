//! The wiki's items of the daily digest (issue 24): clearances to operate
//! equipment lapsing within 30 days and, for equipment editors, maintenance
//! due in their departments. The wiki decides them by the rules of its bell
//! (its internal `DigestItemService`, asked with no token, like auth's
//! `MailRecipientService`); education gives it what only education knows,
//! each person's passes of the courses equipment requires, with their expiry
//! by education's one rule ([`crate::domain::pass::pass_valid_until`]).

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use portal_kit::db::timestamp_from_millis;
use portal_kit::internal::InternalChannel;
use portal_kit::{Right, ServiceResult};
use portal_proto::auth::v1::MailRecipient;
use portal_proto::wiki::v1::digest_item_service_client::DigestItemServiceClient;
use portal_proto::wiki::v1::{
    DigestPass, DigestPerson, ListDigestItemsRequest, ListRequiredCoursesRequest,
};

use crate::app::passes::course_passes;
use crate::domain::date::Day;
use crate::domain::notification::{EquipmentItem, EquipmentKind};
use crate::domain::pass::{MAX_COURSES, PassQuery};
use crate::store::Store;

/// How long one question to the wiki may take.
const WIKI_TIMEOUT: Duration = Duration::from_secs(30);

/// The wiki did not answer: its items are left out.
#[derive(Debug)]
pub struct WikiAway(pub tonic::Status);

/// The wiki's digest items, asked of every wiki replica.
#[derive(Clone)]
pub struct EquipmentItems {
    wiki: DigestItemServiceClient<InternalChannel>,
}

impl EquipmentItems {
    pub fn new(wiki: InternalChannel) -> EquipmentItems {
        EquipmentItems {
            wiki: DigestItemServiceClient::new(wiki),
        }
    }

    /// The courses any equipment model requires: asked once per run.
    pub async fn required_courses(&self) -> Result<Vec<i64>, WikiAway> {
        let mut request = tonic::Request::new(ListRequiredCoursesRequest {});
        portal_kit::deadline::limit(&mut request, WIKI_TIMEOUT);
        match self.wiki.clone().list_required_courses(request).await {
            Ok(reply) => Ok(reply.into_inner().course_ids),
            Err(status) => Err(WikiAway(status)),
        }
    }

    /// The items of `people` (one page of auth's, at most 1,000) by user id.
    /// Only those who may have any are named to the wiki: an equipment
    /// editor, or someone with a pass of a course equipment requires.
    /// `Ok(Err)`: the wiki did not answer.
    pub async fn of(
        &self,
        store: &Store,
        required: &[i64],
        people: &[MailRecipient],
    ) -> ServiceResult<Result<HashMap<i64, Vec<EquipmentItem>>, WikiAway>> {
        let user_ids: Vec<i64> = people.iter().map(|person| person.user_id).collect();
        let mut passes = Vec::new();
        for courses in required.chunks(MAX_COURSES) {
            let query = PassQuery::parse(&user_ids, courses)?;
            passes.extend(course_passes(store, &query).await?.1);
        }
        let holders: HashSet<i64> = passes.iter().map(|pass| pass.user_id).collect();
        let named: Vec<DigestPerson> = people
            .iter()
            .filter(|person| {
                holders.contains(&person.user_id)
                    || person
                        .rights
                        .iter()
                        .any(|right| right == Right::EquipmentEditing.as_str())
            })
            .map(|person| DigestPerson {
                user_id: person.user_id,
                department_ids: person.department_ids.clone(),
                rights: person.rights.clone(),
            })
            .collect();
        if named.is_empty() {
            return Ok(Ok(HashMap::new()));
        }
        let mut request = tonic::Request::new(ListDigestItemsRequest {
            people: named,
            passes: passes
                .into_iter()
                .map(|pass| DigestPass {
                    user_id: pass.user_id,
                    course_id: pass.course_id,
                    valid_until: pass.valid_until.map(timestamp_from_millis),
                })
                .collect(),
        });
        portal_kit::deadline::limit(&mut request, WIKI_TIMEOUT);
        let reply = match self.wiki.clone().list_digest_items(request).await {
            Ok(reply) => reply.into_inner(),
            Err(status) => return Ok(Err(WikiAway(status))),
        };
        Ok(Ok(reply
            .people
            .into_iter()
            .map(|person| {
                let items = person
                    .items
                    .into_iter()
                    .filter_map(|item| {
                        Some(EquipmentItem {
                            kind: EquipmentKind::of(&item.kind),
                            due: Day::stored(&item.due_date)?,
                            title: item.title,
                            link: item.link,
                            overdue: item.overdue,
                        })
                    })
                    .collect();
                (person.user_id, items)
            })
            .collect()))
    }
}
