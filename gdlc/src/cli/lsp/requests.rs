//! The requests the server answers, each from one analysed snapshot of its document, on a
//! thread of its own; a handler that panics is answered with an internal error.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use lsp_server::{ErrorCode, Request, RequestId, Response};
use lsp_types::request::{
    CodeActionRequest, Completion, DocumentSymbolRequest, ExecuteCommand, Formatting,
    GotoDefinition, HoverRequest, OnTypeFormatting, PrepareRenameRequest, RangeFormatting,
    References, Rename, Request as _, SemanticTokensFullRequest,
};
use lsp_types::{GotoDefinitionResponse, Uri};
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::document::Snapshot;
use super::{commands, complete, diagnostics, format, hover, navigate, tokens};

/// The methods answered from a document's snapshot.
pub const METHODS: [&str; 13] = [
    HoverRequest::METHOD,
    GotoDefinition::METHOD,
    References::METHOD,
    PrepareRenameRequest::METHOD,
    Rename::METHOD,
    DocumentSymbolRequest::METHOD,
    Completion::METHOD,
    SemanticTokensFullRequest::METHOD,
    Formatting::METHOD,
    RangeFormatting::METHOD,
    OnTypeFormatting::METHOD,
    CodeActionRequest::METHOD,
    ExecuteCommand::METHOD,
];

/// The document a request is about: `textDocument.uri`, or the first argument of a command.
pub fn document_of(request: &Request) -> Option<Uri> {
    let uri = if request.method == ExecuteCommand::METHOD {
        request.params.get("arguments")?.get(0)?.clone()
    } else {
        request.params.get("textDocument")?.get("uri")?.clone()
    };
    serde_json::from_value::<Uri>(uri).ok()
}

/// What a handler sends back besides its reply: the diagnostics of a validation.
pub type Validated = Option<Vec<lsp_types::Diagnostic>>;

/// Answers `request` from `snapshot`: the response, and a validation's diagnostics. A
/// validation stops soon after `cancel` is set.
pub fn answer(
    snapshot: &Arc<Snapshot>,
    request: Request,
    cancel: &AtomicBool,
) -> (Response, Validated) {
    let id = request.id.clone();
    guarded(id, || handle(snapshot, request, cancel))
}

/// The response of a handler, an internal error if it panics.
fn guarded(
    id: RequestId,
    handler: impl FnOnce() -> Result<(Value, Validated), Failure>,
) -> (Response, Validated) {
    match catch_unwind(AssertUnwindSafe(handler)) {
        Ok(Ok((value, validated))) => (Response::new_ok(id, value), validated),
        Ok(Err((code, message))) => (Response::new_err(id, code as i32, message), None),
        Err(_) => (internal_error(id), None),
    }
}

/// The reply to a request whose handler panicked.
pub fn internal_error(id: RequestId) -> Response {
    Response::new_err(
        id,
        ErrorCode::InternalError as i32,
        "internal error: gdlc lsp failed on this request (a bug; the log has its message)"
            .to_string(),
    )
}

type Failure = (ErrorCode, String);

fn params<P: DeserializeOwned>(request: &Request) -> Result<P, Failure> {
    serde_json::from_value(request.params.clone())
        .map_err(|e| (ErrorCode::InvalidParams, format!("invalid parameters: {e}")))
}

fn json(value: impl serde::Serialize) -> Result<Value, Failure> {
    serde_json::to_value(value).map_err(|e| (ErrorCode::InternalError, e.to_string()))
}

fn handle(
    s: &Snapshot,
    request: Request,
    cancel: &AtomicBool,
) -> Result<(Value, Validated), Failure> {
    use lsp_types::{
        CodeActionParams, CompletionParams, DocumentFormattingParams,
        DocumentOnTypeFormattingParams, DocumentRangeFormattingParams, DocumentSymbolParams,
        ExecuteCommandParams, GotoDefinitionParams, HoverParams, ReferenceParams, RenameParams,
        SemanticTokensParams, TextDocumentPositionParams,
    };
    let failed = |message: String| (ErrorCode::RequestFailed, message);
    let value = match request.method.as_str() {
        HoverRequest::METHOD => {
            let p: HoverParams = params(&request)?;
            json(hover::hover(s, p.text_document_position_params.position))?
        }
        GotoDefinition::METHOD => {
            let p: GotoDefinitionParams = params(&request)?;
            let found = navigate::definition(s, p.text_document_position_params.position);
            json(GotoDefinitionResponse::Array(found))?
        }
        References::METHOD => {
            let p: ReferenceParams = params(&request)?;
            let position = p.text_document_position.position;
            json(navigate::references(
                s,
                position,
                p.context.include_declaration,
            ))?
        }
        PrepareRenameRequest::METHOD => {
            let p: TextDocumentPositionParams = params(&request)?;
            json(navigate::prepare_rename(s, p.position))?
        }
        Rename::METHOD => {
            let p: RenameParams = params(&request)?;
            let position = p.text_document_position.position;
            json(navigate::rename(s, position, &p.new_name).map_err(failed)?)?
        }
        DocumentSymbolRequest::METHOD => {
            let _: DocumentSymbolParams = params(&request)?;
            json(navigate::symbols(s))?
        }
        Completion::METHOD => {
            let p: CompletionParams = params(&request)?;
            json(complete::completions(s, p.text_document_position.position))?
        }
        SemanticTokensFullRequest::METHOD => {
            let _: SemanticTokensParams = params(&request)?;
            json(tokens::tokens(s))?
        }
        Formatting::METHOD => {
            let _: DocumentFormattingParams = params(&request)?;
            json(format::document(s).map_err(failed)?)?
        }
        RangeFormatting::METHOD => {
            let p: DocumentRangeFormattingParams = params(&request)?;
            json(format::range(s, p.range).map_err(failed)?)?
        }
        OnTypeFormatting::METHOD => {
            let p: DocumentOnTypeFormattingParams = params(&request)?;
            json(format::on_type(s, p.text_document_position.position))?
        }
        CodeActionRequest::METHOD => {
            let p: CodeActionParams = params(&request)?;
            json(diagnostics::quick_fixes(s, p.range))?
        }
        ExecuteCommand::METHOD => {
            let p: ExecuteCommandParams = params(&request)?;
            let outcome = commands::run(s, &p.command, &p.arguments, cancel).map_err(failed)?;
            return Ok((outcome.reply, outcome.diagnostics));
        }
        other => {
            return Err((
                ErrorCode::MethodNotFound,
                format!("unknown method `{other}`"),
            ));
        }
    };
    Ok((value, None))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panicking_handler_is_answered_with_an_internal_error() {
        let (response, validated) = guarded(RequestId::from(3), || panic!("boom"));
        let error = response.error.expect("an error");
        assert_eq!(error.code, ErrorCode::InternalError as i32);
        assert_eq!(response.id, RequestId::from(3));
        assert!(validated.is_none());
        let (response, _) = guarded(RequestId::from(4), || Ok((Value::from(1), None)));
        assert_eq!(response.result, Some(Value::from(1)));
    }
}
