import AppStoreEngine
import AppStoreFormats
import Foundation
import Hummingbird

/// Serves requests at Apple's own paths as the App Store would, before the router sees them:
///
/// - `verifyReceipt` at `sandbox.itunes.apple.com` is the sandbox one (the store's `/sandbox/verifyReceipt`); at
///   `buy.itunes.apple.com` it is production's.
/// - An App Store Server API, Advanced Commerce API or External Purchase Server API request (`/inApps/…`,
///   `/advancedCommerce/…`, `/externalPurchase/…`) carries no `/t/{tenant}/`, but its bearer token's `kid` names a
///   key, and each key belongs to one tenant: the request goes to that tenant's routes, where the token is checked in
///   full. A server-wide key, or a `kid` no tenant holds, leaves it at the bare paths, the server's own store, which
///   checks (and refuses) it as before. So backends calling Apple's unchanged URLs in parallel each reach the tenant
///   their key was made for.
/// - A `verifyReceipt` request goes to the tenant that issued the receipt it carries (``AppReceipt/issuingStore``);
///   a receipt that names none, or does not read, stays at the bare paths, which answer it as before.
///
/// It wraps the router rather than being one of its middlewares, because Hummingbird resolves a request's route
/// before it runs middleware: a changed path must be changed first.
struct AppleHostResponder<Next: HTTPResponder>: HTTPResponder where Next.Context == StoreRequestContext {
    typealias Context = StoreRequestContext

    let next: Next
    /// The tenant that holds a key, by the key's identifier; `nil` when the server holds no tenants, and then requests
    /// are never sent to one.
    let keyOwner: (@Sendable (String) async -> String?)?

    func respond(to request: Request, context: Context) async throws -> Response {
        var request = request
        var path = request.uri.path
        if path == "/verifyReceipt", Self.host(of: request) == AppleHosts.verifyReceiptSandbox {
            path = "/sandbox/verifyReceipt"
            request = request.withPath(path)
        }
        guard let keyOwner else { return try await next.respond(to: request, context: context) }
        if path.hasPrefix("/inApps/") || path.hasPrefix("/advancedCommerce/") || path.hasPrefix("/externalPurchase/"), let keyID = Self.keyID(of: request), let tenant = await keyOwner(keyID) {
            return try await next.respond(to: request.withPath("/t/\(tenant)\(path)"), context: context)
        }
        if path == "/verifyReceipt" || path == "/sandbox/verifyReceipt", request.method == .post {
            // The body is read here to find the receipt's store, and handed to the route in the context, read, so
            // the receipt is parsed once.
            guard let body = try? await request.collectBody(upTo: VerifyReceiptService.maximumRequestSize) else {
                return StoreServer.verifyReceiptResponse(VerifyReceiptResponse(status: .malformedRequest))
            }
            var context = context
            let read = VerifyReceiptBody(Data(body.readableBytesView))
            context.verifyReceiptBody = read
            if let tenant = read.receipt?.issuingStore, TenantDirectory.isValidName(tenant) {
                return try await next.respond(to: request.withPath("/t/\(tenant)\(path)"), context: context)
            }
            return try await next.respond(to: request, context: context)
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
