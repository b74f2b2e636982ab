public import AppStoreEngine
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import AppStoreFormats
public import StoreKitConfiguration

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

    /// Opens the tenant `name` — a new one or one with state — selling `configuration`'s products, or the server's own
    /// when `configuration` is `nil`.
    public typealias Opener = @Sendable (_ name: String, _ configuration: StoreKitConfigurationFile?) async throws(StoreError) -> Tenant

    private let open: Opener
    private let storage: (any Storage)?
    private let serverTenant: String?
    private var tenants: [String: Tenant] = [:]
    /// The routes of the tenants used last, and when each was last used (``routeUses``): at most ``routesKept``.
    private var responders: [String: (responder: RouterResponder<StoreRequestContext>, lastUse: UInt64)] = [:]
    /// How many requests the directory routed: the clock of ``responders``' last uses.
    private var routeUses: UInt64 = 0
    /// How many tenants' routes the directory keeps; see ``init(storage:serverTenant:routesKept:open:)``.
    let routesKept: Int
    /// The tenants' feeds of changes for devices, made with their routes and kept with the tenant: the routes may go
    /// and come back, and a device's next poll then finds the changes it waits for.
    private var changeFeeds: [String: ChangeFeed] = [:]
    /// What runs the tenants' work between requests: each tenant joins it as it opens.
    private var service: StoreService?
    /// When each tenant the directory opened itself was last asked for; tenants added from elsewhere (``add(_:named:)``)
    /// and the server's own are never closed, so they have none.
    private var lastUse: [String: ContinuousClock.Instant] = [:]
    /// How long a tenant may sit unused before ``closeIdleTenants(idleFor:)`` closes it; `nil` keeps every tenant open.
    public let idleTimeout: Duration?

    /// Creates a directory that opens a tenant with `open` the first time it is asked for.
    ///
    /// A tenant created or given a catalog keeps it as a row of its storage (`StoreEngine.setCatalog(_:)`), so every
    /// server on the storage sells it, at once, and so does this one after a restart.
    ///
    /// - Parameters:
    ///   - storage: The storage the tenants' stores are in: where the directory reads a tenant's catalog before opening
    ///     it, and finds the tenants it lists without having opened them; `nil` lists only the tenants opened.
    ///   - serverTenant: The tenant the server's own store is (its bare paths). It always starts with the server's
    ///     configuration: a catalog it is given lasts until the server stops, and is never stored.
    ///   - routesKept: How many tenants' routes stay built. A tenant's routes (every endpoint of the bare paths, bound
    ///     to its store) take about 100 KB, four fifths of what a tenant that sold something holds; kept for every
    ///     tenant, 10,000 tenants held a gigabyte. The directory keeps those of the tenants used last, and builds a
    ///     tenant's again, in about a millisecond, on its first request after they went. The default keeps them for
    ///     1,024 tenants: about 100 MB at most, whatever the number of tenants.
    ///   - idleTimeout: How long a tenant may sit unused before the server closes it, when nothing is scheduled in it
    ///     (``closeIdleTenants(idleFor:)``); it opens again from its storage on its next request. Ten minutes by
    ///     default; `nil` keeps every tenant open.
    ///   - open: Opens a tenant, with the catalog it was given or the server's own.
    public init(
        storage: (any Storage)? = nil, serverTenant: String? = nil, routesKept: Int = 1_024, idleTimeout: Duration? = .seconds(600),
        open: @escaping Opener
    ) {
        self.storage = storage
        self.serverTenant = serverTenant
        self.routesKept = max(1, routesKept)
        self.idleTimeout = idleTimeout
        self.open = open
    }

    /// The tenant with the name, opened on first use with the catalog stored for it, else the server's.
    ///
    /// - Throws: `StoreError.storageFailure` when its store or its stored catalog cannot be read.
    public func tenant(_ name: String) async throws(StoreError) -> Tenant {
        if let tenant = tenants[name] {
            noteUse(of: name)
            return tenant
        }
        let tenant = try await open(name, try await storedCatalog(of: name))
        // Learns the version of the stored catalog it was opened with (or adopts one an embedder's storage holds).
        if name != serverTenant { _ = try await tenant.engine.currentCatalog() }
        // Another request may have opened it while this one waited; the first one stays.
        if let existing = tenants[name] { return existing }
        return await keep(tenant, named: name, closable: true)
    }

    /// Holds `tenant` as `name`, its work run by ``service`` from now on; a `closable` one may be closed while idle.
    private func keep(_ tenant: Tenant, named name: String, closable: Bool) async -> Tenant {
        tenants[name] = tenant
        if closable, name != serverTenant { lastUse[name] = .now }
        await service?.adopt(tenant)
        return tenant
    }

    /// Notes that the tenant was just asked for, so it is not closed as idle.
    private func noteUse(of name: String) {
        if lastUse[name] != nil { lastUse[name] = .now }
    }

    /// Closes every tenant the directory opened that nobody asked for in `idleFor` (by default ``idleTimeout``) and
    /// that has nothing scheduled: no renewal, expiry or token notification to come (`StoreEngine.nextEventDate()`),
    /// nothing its notification sender could send, and no device waiting on its change feed. Its store, sender and
    /// routes go, and everything they held; its state stays in storage, and its next request opens it again as it
    /// was. The server's own store and tenants added from elsewhere stay open.
    ///
    /// A running server does this every minute (``StoreService``).
    ///
    /// - Returns: The names of the tenants closed, sorted.
    @discardableResult
    public func closeIdleTenants(idleFor: Duration? = nil) async -> [String] {
        guard let idleFor = idleFor ?? idleTimeout else { return [] }
        var closed: [String] = []
        for (name, used) in lastUse where ContinuousClock.now - used >= idleFor {
            guard let tenant = tenants[name],
                  await tenant.engine.nextEventDate() == nil,
                  await tenant.notificationSender?.hasNothingToSend() ?? true,
                  await !(changeFeeds[name]?.hasWaitingPolls ?? false),
                  // Asked for, reopened or deleted while this looked.
                  lastUse[name] == used, tenants[name]?.engine === tenant.engine
            else { continue }
            tenants[name] = nil
            responders[name] = nil
            changeFeeds[name] = nil
            lastUse[name] = nil
            if let service { await service.close(tenant) } else { await tenant.notificationSender?.stop() }
            closed.append(name)
        }
        if !closed.isEmpty { FreedMemory.shared.memoryFreed(in: storage) }
        return closed.sorted()
    }

    /// Has `service` run the work of every tenant — the ones open now and each one opened later — until the server
    /// shuts down: what ``StoreServer/services(onListening:onListenerFailure:)`` does.
    public func runWork(in service: StoreService) async {
        self.service = service
        for tenant in tenants.values { await service.adopt(tenant) }
        // Looked at every minute, or more often for a shorter idle time, but never in a loop that does nothing else.
        if let idleTimeout { await service.closeIdleTenants(of: self, every: max(min(idleTimeout, .seconds(60)), .seconds(1))) }
    }

    /// Adds a store opened elsewhere — an engine embedded in this process — as the tenant `name`.
    ///
    /// - Returns: `false`, changing nothing, when the directory already holds a tenant of that name or `name` is not
    ///   a valid tenant name (``isValidName(_:)``).
    @discardableResult
    public func add(_ tenant: Tenant, named name: String) async -> Bool {
        guard Self.isValidName(name), tenants[name] == nil else { return false }
        _ = await keep(tenant, named: name, closable: false)
        return true
    }

    /// Creates the tenant `name`, selling `configuration`'s products (stored with the tenant, for every server on the
    /// storage and later runs), or the server's own when it is `nil`.
    ///
    /// - Throws: ``TenantError`` `alreadyExists` when the name is taken — opened, given a catalog earlier, or holding
    ///   purchases — `invalidName` for a name ``isValidName(_:)`` refuses, `storeFailure` when the store cannot be opened.
    public func create(_ name: String, configuration: StoreKitConfigurationFile?) async throws(TenantError) -> Tenant {
        guard Self.isValidName(name) else { throw .invalidName(name) }
        let tenant: Tenant
        do {
            guard tenants[name] == nil, try await storedCatalog(of: name) == nil else { throw TenantError.alreadyExists(name) }
            tenant = try await open(name, configuration)
            let ownCatalog = name == serverTenant ? nil : try await tenant.engine.storedCatalog()
            guard try await tenant.engine.accounts().isEmpty, try await tenant.engine.transactions().isEmpty, ownCatalog == nil else {
                throw TenantError.alreadyExists(name)
            }
            if let configuration, name != serverTenant { try await tenant.engine.setCatalog(configuration) }
        } catch {
            throw .wrapping(error)
        }
        if let existing = tenants[name] { return existing }
        return await keep(tenant, named: name, closable: true)
    }

    /// Replaces what the tenant `name` sells with `configuration`'s products and promotional offer keys, on every
    /// server on the storage and in later runs (the server's own tenant: on this server, until it stops). Purchases,
    /// settings and the clock stay.
    ///
    /// - Throws: `StoreError.storageFailure` when the catalog cannot be stored; nothing changes then.
    public func replaceCatalog(of name: String, with configuration: StoreKitConfigurationFile) async throws(StoreError) {
        let tenant = try await tenant(name)
        guard name == serverTenant else {
            try await tenant.engine.setCatalog(configuration)
            return
        }
        let catalog = Catalog(configuration: configuration)
        try await tenant.engine.announcePriceIncreases(to: catalog)
        await tenant.engine.replaceCatalog(catalog)
        for key in PromotionalOfferKey.keys(in: configuration) { await tenant.engine.addPromotionalOfferKey(key) }
    }

    /// Erases the tenant `name` — accounts, purchases, subscriptions, notifications, its clock — and opens it again
    /// as new, at wall time, with the catalog it had and its configuration's settings.
    ///
    /// Devices connected to it notice on their next look (their long poll answers that everything changed).
    public func reset(_ name: String) async throws(StoreError) {
        try await tenant(name).engine.erase()
        try await reopen(name)
    }

    /// Deletes the tenant `name` — its accounts, purchases, subscriptions, notifications, clock, catalog, settings,
    /// notification URLs, API keys and Retention Messaging content — and closes it on this server: its sender stops
    /// and its wakes, and its routes go. The name is free again; a request to `/t/{name}/` afterwards starts it anew.
    ///
    /// - Throws: `TenantError` — `invalidName`, `serverTenant` for the server's own store (reset it instead),
    ///   `unknown` for a tenant nothing is stored of, `storeFailure` when the storage fails (nothing is deleted then).
    public func delete(_ name: String) async throws(TenantError) {
        guard Self.isValidName(name) else { throw .invalidName(name) }
        guard name != serverTenant else { throw .serverTenant(name) }
        do {
            if tenants[name] == nil {
                let stored = try await storage?.tenantsWithState() ?? []
                guard stored.contains(name) else { throw TenantError.unknown(name) }
            }
            let tenant = try await self.tenant(name)
            try await tenant.engine.delete()
            await tenant.notificationSender?.stop()
            tenants[name] = nil
            responders[name] = nil
            changeFeeds[name] = nil
            lastUse[name] = nil
            await service?.forget(tenant)
        } catch {
            throw .wrapping(error)
        }
        FreedMemory.shared.memoryFreed(in: storage)
    }

    /// Everything the tenant `name` holds, as a snapshot an import restores.
    public func export(_ name: String) async throws(StoreError) -> TenantSnapshot {
        try await tenant(name).engine.exportState()
    }

    /// Replaces everything the tenant `name` holds with `snapshot`'s state, and opens it again so that it runs on the
    /// imported clock. Devices connected to it look at everything again.
    public func restore(_ name: String, from snapshot: TenantSnapshot) async throws(StoreError) {
        try await tenant(name).engine.importState(snapshot)
        try await reopen(name)
    }

    /// Opens the tenant again from its storage — a fresh clock, sender and routes — after its state was replaced.
    private func reopen(_ name: String) async throws(StoreError) {
        await tenants[name]?.notificationSender?.stop()
        tenants[name] = nil
        responders[name] = nil
        changeFeeds[name] = nil
        _ = try await tenant(name)
    }

    /// The tenants opened so far and every tenant with anything in the storage — made through any server on it, or by
    /// a command on the storage itself —, sorted by name.
    ///
    /// - Throws: `StoreError.storageFailure` when the storage cannot be read.
    public func summaries() async throws(StoreError) -> [TenantSummary] {
        let stored, withCatalogs: Set<String>
        do {
            withCatalogs = Set(try await storage?.tenantsWithCatalogs() ?? [])
            stored = withCatalogs.union(try await storage?.tenantsWithState() ?? []).filter { $0 != serverTenant && Self.isValidName($0) }
        } catch let error as StoreError {
            throw error
        } catch {
            throw .storageFailure("The tenants cannot be read from the storage: \(error). Check the storage and try again.")
        }
        var summaries: [TenantSummary] = []
        for name in stored.union(tenants.keys).sorted() {
            let engine = tenants[name]?.engine
            let products = try await engine?.currentCatalog().products.count
            var hasOwnCatalog = withCatalogs.contains(name)
            if storage == nil, name != serverTenant, let engine { hasOwnCatalog = try await engine.storedCatalog() != nil }
            summaries.append(TenantSummary(name: name, isOpen: engine != nil, products: products, hasOwnCatalog: hasOwnCatalog))
        }
        return summaries
    }

    /// The names of the tenants opened so far, sorted.
    public func openedTenants() -> [String] {
        tenants.keys.sorted()
    }

    /// The catalog stored for the tenant `name`, which it is opened with; `nil` for the server's tenant and a tenant
    /// given none.
    private func storedCatalog(of name: String) async throws(StoreError) -> StoreKitConfigurationFile? {
        guard name != serverTenant, let storage else { return nil }
        let stored: StoredCatalog
        do {
            stored = try await storage.read(tenant: name) { try $0.storedCatalog() }
        } catch let error as StoreError {
            throw error
        } catch {
            throw .storageFailure("The catalog of tenant \(name) cannot be read from the storage: \(error). Check the storage and try again.")
        }
        guard let document = stored.document else { return nil }
        do {
            return try StoreKitConfigurationFile(data: document, sourceName: "the stored catalog of tenant \(name)")
        } catch {
            throw .storageFailure("The stored catalog of tenant \(name) is not a usable .storekit file (\(error.description)). Store a valid one: PUT /control/tenants/\(name)/catalog.")
        }
    }

    /// The routes of a tenant, built from `server`'s settings with the tenant's store, and kept while it is among the
    /// ``routesKept`` tenants used last.
    func responder(for name: String, like server: StoreServer) async throws(StoreError) -> RouterResponder<StoreRequestContext> {
        routeUses += 1
        noteUse(of: name)
        if let kept = responders[name] {
            responders[name]?.lastUse = routeUses
            return kept.responder
        }
        let tenant = try await tenant(name)
        if let kept = responders[name] { return kept.responder }
        let changeFeed = changeFeeds[name] ?? ChangeFeed(following: tenant.engine)
        changeFeeds[name] = changeFeed
        var tenantServer = StoreServer(
            engine: tenant.engine, host: server.host, port: server.port, apiKeys: server.apiKeys,
            notificationSender: tenant.notificationSender, logger: server.logger
        )
        tenantServer.sharedSecrets = server.sharedSecrets
        // The tenant's own keys are rows of its storage: they outlive a reset, being credentials, not state.
        tenantServer.ownAPIKeys = ServerAPIKeyRing(storage: tenant.engine.storage, tenant: name)
        // The tenant's routes are not server-wide: the directory serves only its page's tenant picker there.
        tenantServer.tenants = self
        tenantServer.basePath = "/t/\(name)/"
        tenantServer.serverStoreName = server.engine.tenantID
        tenantServer.changeFeed = changeFeed
        let responder = tenantServer.makeRouter(serverWide: false).buildResponder()
        if responders.count >= routesKept, let leastRecent = responders.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
            responders[leastRecent] = nil
        }
        responders[name] = (responder, routeUses)
        return responder
    }

    /// The tenants whose routes are built now, sorted.
    func tenantsWithRoutes() -> [String] {
        responders.keys.sorted()
    }

    /// Whether `name` may name a tenant: 1 to 64 letters, digits, `.`, `_` or `-`, starting with a letter or digit.
    public static func isValidName(_ name: some StringProtocol) -> Bool {
        guard let first = name.first, first.isASCII, first.isLetter || first.isNumber, name.count <= 64 else { return false }
        return name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "_" || $0 == "-") }
    }
}

/// A tenant as `GET /control/tenants` lists it.
public struct TenantSummary: Codable, Sendable, Hashable {
    /// The tenant's name: its routes are under `/t/{name}/`.
    public var name: String
    /// Whether the server opened it since it started.
    public var isOpen: Bool
    /// How many products it sells, when it is open.
    public var products: Int?
    /// Whether it sells a catalog of its own rather than the server's.
    public var hasOwnCatalog: Bool
}

/// Why a tenant cannot be created or deleted.
public struct TenantError: Error, Sendable, CustomStringConvertible {
    enum Code: Sendable { case invalidName, alreadyExists, unknown, serverTenant, storeFailure(StoreError) }
    let code: Code
    /// What went wrong and what to do.
    public let message: String

    static func invalidName(_ name: String) -> TenantError {
        TenantError(code: .invalidName, message: "\"\(name)\" is not a tenant name: use 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit.")
    }
    static func alreadyExists(_ name: String) -> TenantError {
        TenantError(code: .alreadyExists, message: "Tenant \(name) already exists. Reset it (POST /control/tenants/\(name)/reset) or pick another name.")
    }
    static func unknown(_ name: String) -> TenantError {
        TenantError(code: .unknown, message: "There is no tenant \(name): nothing of it is stored and the server has not opened it. GET /control/tenants lists the tenants.")
    }
    static func serverTenant(_ name: String) -> TenantError {
        TenantError(code: .serverTenant, message: "\(name) is the server's own store, which lives as long as the server: reset it (POST /control/tenants/\(name)/reset) instead.")
    }
    /// `error` as a tenant error: itself when it is one, else the store's failure.
    static func wrapping(_ error: any Error) -> TenantError {
        switch error {
        case let error as TenantError: error
        case let error as StoreError: .storeFailure(error)
        default: .storeFailure(.storageFailure("\(error)"))
        }
    }
    static func storeFailure(_ error: StoreError) -> TenantError {
        TenantError(code: .storeFailure(error), message: error.message)
    }

    /// Whether the name was taken; a request that did so is a conflict.
    public var isConflict: Bool {
        if case .alreadyExists = code { true } else { false }
    }
    /// Whether the name itself was refused.
    public var isInvalidName: Bool {
        if case .invalidName = code { true } else { false }
    }

    /// The message.
    public var description: String { message }
}

/// Sends `/t/{tenant}/rest` to the tenant's own routes as `/rest`, so every endpoint exists once per tenant.
struct TenantRoutingMiddleware: RouterMiddleware {
    typealias Context = StoreRequestContext

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
        let responder: RouterResponder<StoreRequestContext>
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
