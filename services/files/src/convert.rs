//! Records as the contract's messages.

use portal_kit::db::timestamp_from_millis;
use portal_proto::files::v1 as pb;

use crate::app::links::Link;
use crate::domain::content::ContentType;
use crate::store::file::FileRecord;

/// A file's metadata under its download `url`, which carries `link` if given.
pub fn file(record: FileRecord, url: String, link: Option<&Link>) -> pb::File {
    let url = match link {
        Some(link) => format!("{url}?link={}", link.token),
        None => url,
    };
    pb::File {
        url,
        url_expires_at: link.map(|link| prost_types::Timestamp {
            seconds: link.expires_at,
            nanos: 0,
        }),
        inline: ContentType::of_stored(&record.content_type).is_some_and(|t| t.inline),
        id: record.id,
        title: record.title,
        id_related: record.id_related,
        file_name: record.file_name,
        content_type: record.content_type,
        size: record.size_bytes,
        sha256: record.sha256,
        uploader_id: record.uploaded_by,
        created_at: Some(timestamp_from_millis(record.created_at)),
    }
}
