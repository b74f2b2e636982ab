import Hummingbird

/// Serves requests made to Apple's own addresses as the App Store would: `verifyReceipt` at
/// `sandbox.itunes.apple.com` is the sandbox one (the store's `/sandbox/verifyReceipt`), at `buy.itunes.apple.com`
/// the production one. Every other request passes through unchanged.
///
/// It wraps the router rather than being one of its middlewares, because Hummingbird resolves a request's route
/// before it runs middleware: a changed path must be changed first.
struct AppleHostResponder<Next: HTTPResponder>: HTTPResponder where Next.Context == BasicRequestContext {
    typealias Context = BasicRequestContext

    let next: Next

    func respond(to request: Request, context: Context) async throws -> Response {
        guard Self.host(of: request) == AppleHosts.verifyReceiptSandbox, request.uri.path == "/verifyReceipt" else {
            return try await next.respond(to: request, context: context)
        }
        var head = request.head
        head.path = "/sandbox/verifyReceipt" + (request.uri.query.map { "?\($0)" } ?? "")
        return try await next.respond(to: Request(head: head, body: request.body), context: context)
    }

    /// The host a request names (its `Host` header), lowercased, without a port.
    static func host(of request: Request) -> String? {
        guard var authority = request.head.authority?.lowercased() else { return nil }
        if authority.hasPrefix("[") {
            return authority.firstIndex(of: "]").map { String(authority[authority.index(after: authority.startIndex)..<$0]) }
        }
        if let colon = authority.lastIndex(of: ":") { authority = String(authority[..<colon]) }
        return authority
    }
}
