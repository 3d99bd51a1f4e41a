//! `$/cancelRequest`: which request a cancel names, and which requests of a batch of messages
//! a later message of the same batch cancels.
//!
//! A request queued is cancelled before it is computed: in the batch it came in, before the
//! cancel that follows it ([`cancelled_later`]), or waiting for the analysis of its document
//! (`Server::on_cancel`). A request being answered on its thread is answered at once too, and
//! the answer its thread gives later is dropped (the thread runs to its end: every request is
//! bounded). Either way the reply is `RequestCancelled` (-32800). A request answered already
//! is left alone, as is a cancel naming no request the server knows; a cancel without a valid
//! id is logged.

use std::collections::HashMap;

use lsp_server::{Message, RequestId};
use lsp_types::notification::{Cancel, Notification as _};
use serde_json::Value;

use super::transport::Incoming;

/// The method of a cancel.
pub const METHOD: &str = Cancel::METHOD;

/// The id a cancel's parameters name (`{"id": number | string}`), or why there is none.
pub fn cancelled_id(params: &Value) -> Result<RequestId, String> {
    let id = params.get("id").ok_or("no `id`")?;
    serde_json::from_value::<RequestId>(id.clone())
        .map_err(|_| format!("the id `{id}` is neither an integer nor a string"))
}

/// The ids cancelled in `batch`, each with the position of its last cancel: a request before
/// that position is cancelled before it is answered.
pub fn cancelled_later(batch: &[Incoming]) -> HashMap<RequestId, usize> {
    let mut later = HashMap::new();
    for (i, item) in batch.iter().enumerate() {
        if let Incoming::Message(Message::Notification(n)) = item
            && n.method == METHOD
            && let Ok(id) = cancelled_id(&n.params)
        {
            later.insert(id, i);
        }
    }
    later
}

#[cfg(test)]
mod tests {
    use super::super::{Doc, Event, Phase, Server};
    use super::*;
    use lsp_server::{Notification, Request, Response};
    use serde_json::json;
    use std::collections::HashMap;
    use std::sync::Arc;

    fn cancel(id: Value) -> Incoming {
        let params = json!({ "id": id });
        Incoming::Message(Message::Notification(Notification::new(
            METHOD.to_string(),
            params,
        )))
    }

    fn hover(id: i32, uri: &str) -> Incoming {
        let params = json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": 1}});
        Incoming::Message(Message::Request(Request::new(
            id.into(),
            "textDocument/hover".to_string(),
            params,
        )))
    }

    #[test]
    fn ids_of_cancels() {
        assert_eq!(cancelled_id(&json!({"id": 7})), Ok(RequestId::from(7)));
        assert_eq!(
            cancelled_id(&json!({"id": "a"})),
            Ok(RequestId::from("a".to_string()))
        );
        assert!(cancelled_id(&json!({})).is_err());
        assert!(cancelled_id(&Value::Null).is_err());
        assert!(cancelled_id(&json!({"id": [1]})).is_err());
        assert!(cancelled_id(&json!({"id": 1.5})).is_err());
        let batch = [
            cancel(json!(1)),
            hover(1, "file:///a.kif"),
            cancel(json!(1)),
        ];
        assert_eq!(cancelled_later(&batch), HashMap::from([(1.into(), 2)]));
    }

    /// Requests waiting for an analysis that never comes (nothing reads the jobs): a cancel
    /// answers its request at once, the others keep waiting, a second cancel of the same id
    /// or of an unknown one says nothing.
    #[test]
    fn a_waiting_request_is_answered_cancelled() {
        let (out, written) = crossbeam_channel::unbounded();
        let (events, _events) = crossbeam_channel::unbounded();
        let (jobs, _jobs) = crossbeam_channel::unbounded();
        let mut server = Server {
            out,
            events,
            jobs,
            docs: HashMap::new(),
            running: HashMap::new(),
            phase: Phase::Running,
        };
        let uri = "file:///a.kif";
        server.docs.insert(
            uri.parse().unwrap(),
            Doc {
                version: 1,
                text: Arc::from("(role x)"),
                snapshot: None,
                waiting: Vec::new(),
                validated: None,
            },
        );
        assert!(!server.on_batch(vec![hover(1, uri), hover(2, uri)]));
        assert!(written.try_recv().is_err());
        server.on_batch(vec![cancel(json!(2)), cancel(json!(2)), cancel(json!(9))]);
        let replies: Vec<Message> = written.try_iter().collect();
        let [Message::Response(Response { id, error, .. })] = replies.as_slice() else {
            panic!("{replies:?}");
        };
        assert_eq!(*id, RequestId::from(2));
        assert_eq!(error.as_ref().map(|e| e.code), Some(-32800));
        let waiting = &server.docs.values().next().unwrap().waiting;
        assert_eq!(waiting.len(), 1);
        assert_eq!(waiting[0].id, RequestId::from(1));
        // A malformed cancel: ignored.
        server.on_batch(vec![cancel(json!(null)), cancel(json!({"x": 1}))]);
        assert!(written.try_recv().is_err());
        assert_eq!(server.docs.values().next().unwrap().waiting.len(), 1);
    }

    /// A running request's cancel raises its flag (a validation stops on it) and is answered
    /// at once; its late answer is dropped.
    #[test]
    fn a_running_request_is_stopped_and_answered_cancelled() {
        let (out, written) = crossbeam_channel::unbounded();
        let (events, _events) = crossbeam_channel::unbounded();
        let (jobs, _jobs) = crossbeam_channel::unbounded();
        let flag = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let mut server = Server {
            out,
            events,
            jobs,
            docs: HashMap::new(),
            running: HashMap::from([(RequestId::from(7), Arc::clone(&flag))]),
            phase: Phase::Running,
        };
        server.on_batch(vec![cancel(json!(7))]);
        assert!(flag.load(std::sync::atomic::Ordering::Relaxed));
        let replies: Vec<Message> = written.try_iter().collect();
        let [Message::Response(Response { id, error, .. })] = replies.as_slice() else {
            panic!("{replies:?}");
        };
        assert_eq!(*id, RequestId::from(7));
        assert_eq!(error.as_ref().map(|e| e.code), Some(-32800));
        server.on_event(Event::Answered(Response::new_ok(
            RequestId::from(7),
            json!(null),
        )));
        assert!(written.try_recv().is_err());
    }
}
