import OpenStoreKitTest

/// How this suite's sessions reach their stores: in-process. The `OpenStoreKitHTTPTests` target runs the same test
/// files with its own `sessionTransport`, over HTTP.
let sessionTransport = SKTestSession.Transport.inProcess
