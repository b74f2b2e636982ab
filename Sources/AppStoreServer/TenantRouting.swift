public import AppStoreEngine
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The isolated stores one server holds, by tenant name, opened on first use: what `/t/{tenant}/…` serves.
///
/// Every tenant has its own engine — its own catalog, clock, settings, transactions and notification outbox — and
/// its own notification sender. Parallel backend tests each use a tenant of their own, so none sees another's
/// purchases.
public actor TenantDirectory {
    /// One tenant's store and what sends its notifications.
    public struct Tenant: Sendable {
        /// The tenant's store.
        public var engine: StoreEngine
        /// What sends its notifications; `nil` sends none.
        public var notificationSender: NotificationSender?

        /// Describes a tenant.
        public init(engine: StoreEngine, notificationSender: NotificationSender? = nil) {
            self.engine = engine
            self.notificationSender = notificationSender
        }
    }

    private let open: @Sendable (String) async throws(StoreError) -> Tenant
    private var tenants: [String: Tenant] = [:]
    private var responders: [String: RouterResponder<BasicRequestContext>] = [:]

    /// Creates a directory that opens a tenant with `open` the first time it is asked for.
    public init(open: @escaping @Sendable (String) async throws(StoreError) -> Tenant) {
        self.open = open
    }

    /// The tenant with the name, opened on first use.
    ///
    /// - Throws: `StoreError.storageFailure` when its store cannot be opened.
    public func tenant(_ name: String) async throws(StoreError) -> Tenant {
        if let tenant = tenants[name] { return tenant }
        let tenant = try await open(name)
        // Another request may have opened it while this one waited; the first one stays.
        if let existing = tenants[name] { return existing }
        tenants[name] = tenant
        return tenant
    }

    /// Adds a store opened elsewhere — an engine embedded in this process — as the tenant `name`.
    ///
    /// - Returns: `false`, changing nothing, when the directory already holds a tenant of that name or `name` is not
    ///   a valid tenant name (``isValidName(_:)``).
    @discardableResult
    public func add(_ tenant: Tenant, named name: String) -> Bool {
        guard Self.isValidName(name), tenants[name] == nil else { return false }
        tenants[name] = tenant
        return true
    }

    /// The names of the tenants opened so far, sorted.
    public func openedTenants() -> [String] {
        tenants.keys.sorted()
    }

    /// The routes of a tenant, built once from `server`'s settings with the tenant's store.
    func responder(for name: String, like server: StoreServer) async throws(StoreError) -> RouterResponder<BasicRequestContext> {
        if let responder = responders[name] { return responder }
        let tenant = try await tenant(name)
        var tenantServer = StoreServer(
            engine: tenant.engine, host: server.host, port: server.port, apiKeys: server.apiKeys,
            notificationSender: tenant.notificationSender, logger: server.logger
        )
        tenantServer.sharedSecrets = server.sharedSecrets
        let responder = tenantServer.makeRouter(logRequests: false).buildResponder()
        responders[name] = responder
        return responder
    }

    /// Whether `name` may name a tenant: 1 to 64 letters, digits, `.`, `_` or `-`, starting with a letter or digit.
    public static func isValidName(_ name: some StringProtocol) -> Bool {
        guard let first = name.first, first.isASCII, first.isLetter || first.isNumber, name.count <= 64 else { return false }
        return name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "_" || $0 == "-") }
    }
}

/// Sends `/t/{tenant}/rest` to the tenant's own routes as `/rest`, so every endpoint exists once per tenant.
struct TenantRoutingMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext

    let tenants: TenantDirectory
    let server: StoreServer

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        guard path.hasPrefix("/t/") else { return try await next(request, context) }
        let rest = path.dropFirst(3)
        let name = rest.prefix { $0 != "/" }
        guard TenantDirectory.isValidName(name) else {
            return Self.error("\"\(name)\" is not a tenant name: use 1 to 64 letters, digits, '.', '_' or '-'.", status: .badRequest)
        }
        let responder: RouterResponder<BasicRequestContext>
        do {
            responder = try await tenants.responder(for: String(name), like: server)
        } catch {
            return Self.error(error.message, status: .internalServerError)
        }
        var head = request.head
        let remainder = rest.dropFirst(name.count)
        let query = request.uri.query.map { "?\($0)" } ?? ""
        head.path = (remainder.isEmpty ? "/" : String(remainder)) + query
        return try await responder.respond(to: Request(head: head, body: request.body), context: context)
    }

    private static func error(_ message: String, status: HTTPResponse.Status) -> Response {
        let data = (try? JSONEncoder().encode(["error": message])) ?? Data()
        return Response(status: status, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}
