/// The OpenAPI 3.1 document of the control API, served at `GET /control/openapi.json`: the one place each control
/// operation's method and path are written (see ``ControlOperation``).
///
/// The document is `ControlAPI.json` beside this file, compiled in as ``json`` by the `EmbedText` build plugin.
/// `ControlAPIDocumentTests` checks that every `/control/` route the router registers is in it and every
/// ``ControlOperation`` names one of its operations, and the schemathesis test sends it generated requests, none of
/// which may get a 5xx.
enum ControlAPIDocument {}
