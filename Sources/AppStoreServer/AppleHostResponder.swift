import AppStoreEngine
import AppStoreFormats
import Hummingbird

/// Serves requests at Apple's own paths as the App Store would, before the router sees them:
///
/// - `verifyReceipt` at `sandbox.itunes.apple.com` is the sandbox one (the store's `/sandbox/verifyReceipt`); at
///   `buy.itunes.apple.com` it is production's.
/// - An App Store Server API request (`/inApps/…`) carries no `/t/{tenant}/`, but its bearer token's `kid` names a
///   key, and each key belongs to one tenant: the request goes to that tenant's routes, where the token is checked in
///   full. A server-wide key, or a `kid` no tenant holds, leaves it at the bare paths, the server's own store, which
///   checks (and refuses) it as before. So backends calling Apple's unchanged URLs in parallel each reach the tenant
///   their key was made for.
///
/// It wraps the router rather than being one of its middlewares, because Hummingbird resolves a request's route
/// before it runs middleware: a changed path must be changed first.
struct AppleHostResponder<Next: HTTPResponder>: HTTPResponder where Next.Context == BasicRequestContext {
    typealias Context = BasicRequestContext

    let next: Next
    /// The tenant that holds a key, by the key's identifier; `nil` when the server holds no tenants.
    let keyOwner: (@Sendable (String) async -> String?)?

    func respond(to request: Request, context: Context) async throws -> Response {
        let path = request.uri.path
        if path == "/verifyReceipt", Self.host(of: request) == AppleHosts.verifyReceiptSandbox {
            return try await next.respond(to: request.withPath("/sandbox/verifyReceipt"), context: context)
        }
        if path.hasPrefix("/inApps/"), let keyOwner, let keyID = Self.keyID(of: request), let tenant = await keyOwner(keyID) {
            return try await next.respond(to: request.withPath("/t/\(tenant)\(path)"), context: context)
        }
        return try await next.respond(to: request, context: context)
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

    /// The `kid` of the request's bearer token, read without checking the token: it only picks where the token is
    /// checked.
    static func keyID(of request: Request) -> String? {
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else { return nil }
        return (try? CompactJWS(String(header.dropFirst("Bearer ".count))))?.keyID
    }
}

extension Request {
    /// The request with its path replaced, its query kept.
    func withPath(_ path: String) -> Request {
        var head = head
        head.path = path + (uri.query.map { "?\($0)" } ?? "")
        return Request(head: head, body: body)
    }
}
