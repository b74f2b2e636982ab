public import AppStoreEngine
public import Foundation
import HTTPTypes
public import Hummingbird
public import Logging
import NIOCore
import AppStoreFormats
import StoreKitConfiguration

/// The HTTP face of a store: what `storekit serve` runs.
///
/// It answers `GET /health`, `GET /v1/products`, the device protocol app processes use (`/device/…`, see
/// `DeviceProtocol`), `verifyReceipt`, the App Store Server API and the control API, for its own store and, under
/// `/t/{tenant}/…`, for each of its tenants.
public struct StoreServer: Sendable {
    /// The store the server answers for.
    public let engine: StoreEngine
    /// The address to listen on; loopback by default, so nothing outside the machine can reach it.
    public let host: String
    /// The port to listen on; 0 picks a free one.
    public let port: Int
    /// Where request logs go.
    public let logger: Logger
    /// The keys App Store Server API requests may be signed with.
    public let apiKeys: ServerAPIKeyRing
    /// What sends the store's notifications, and test notifications the API asks for; `nil` sends none.
    public let notificationSender: NotificationSender?
    /// The apps' `verifyReceipt` shared secrets by bundle identifier; an app without one accepts any `password`.
    public var sharedSecrets: [String: String] = [:]
    /// The other stores the server holds, served under `/t/{tenant}/…` with every route the bare paths have; `nil`
    /// serves only ``engine``.
    public var tenants: TenantDirectory?
    /// The keys of this store alone, accepted besides ``apiKeys`` (the server's, valid for every tenant): a tenant's
    /// own keys, made with `POST /t/{tenant}/control/keys`.
    public var ownAPIKeys: ServerAPIKeyRing?
    /// An HTTPS listener beside the plain one, serving the same routes; `nil` listens on plain HTTP only.
    public var https: HTTPSListener?
    /// Where the server counts requests, and what `GET /metrics` renders in Prometheus' text format; `nil` counts
    /// nothing and has no `/metrics`. The stores' purchases, renewals and refunds are counted for the stores it
    /// follows (``StoreMetrics/follow(_:)``), their notification attempts by senders made with it.
    public var metrics: StoreMetrics?
    /// Where this store's routes start, for the links of the transaction manager's page: `/`, or `/t/{tenant}/` for
    /// a tenant's routes.
    var basePath = "/"
    /// For a tenant's routes: the name of the store at the server's bare paths, for the page's tenant picker.
    var serverStoreName: String?
    /// For a tenant's routes: the tenant's feed of changes for devices, which outlives its routes (the directory
    /// builds them again after dropping them); `nil` makes one with the routes.
    var changeFeed: ChangeFeed?

    /// Creates a server for `engine`.
    ///
    /// - Parameters:
    ///   - engine: The store the server answers for.
    ///   - host: The address to listen on; loopback by default.
    ///   - port: The port to listen on; 0 picks a free one.
    ///   - apiKeys: The keys App Store Server API tokens may be signed with, shared with the server's tenants; without
    ///     any, every API request gets 401.
    ///   - notificationSender: What sends test notifications the API asks for; without one, the API answers that the
    ///     app has no notification URL.
    ///   - logger: Where request logs go.
    public init(
        engine: StoreEngine, host: String = "127.0.0.1", port: Int = 8080, apiKeys: ServerAPIKeyRing = ServerAPIKeyRing(),
        notificationSender: NotificationSender? = nil, logger: Logger = Logger(label: "storekit.server")
    ) {
        self.engine = engine
        self.host = host
        self.port = port
        self.apiKeys = apiKeys
        self.notificationSender = notificationSender
        self.logger = logger
    }

    /// The routes, without a network listener: usable in-process by tests and embedders.
    public func makeRouter() -> Router<StoreRequestContext> {
        makeRouter(serverWide: true)
    }

    /// The routes. The server-wide ones — request logs, `/t/{tenant}/…`, tenants and keys in the control API — exist
    /// once, on the server's own paths; a tenant's routes, reached through them, have only the store's.
    func makeRouter(serverWide: Bool) -> Router<StoreRequestContext> {
        let router = Router(context: StoreRequestContext.self)
        if serverWide {
            router.add(middleware: RequestLogMiddleware())
            if let metrics {
                router.add(middleware: MetricsMiddleware(metrics: metrics))
                router.get("metrics") { _, _ -> Response in
                    await metrics.refreshOutboxDepth()
                    return Response(
                        status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                        body: ResponseBody(byteBuffer: ByteBuffer(string: metrics.exposition()))
                    )
                }
            }
            if let tenants {
                router.add(middleware: TenantRoutingMiddleware(tenants: tenants, server: self))
                TenantControlRoutes(tenants: tenants).add(to: router)
            }
            KeyControlRoutes(keys: apiKeys).add(to: router)
        } else if let ownAPIKeys {
            KeyControlRoutes(keys: ownAPIKeys).add(to: router)
        }
        let authenticator = ServerAPIAuthenticator(keyRings: [ownAPIKeys, apiKeys].compactMap { $0 })
        let engine = engine
        router.get("health") { _, _ -> HealthResponse in
            HealthResponse(status: "ok", version: StoreDefaults.version, now: engine.clock.now())
        }
        router.get("v1/products") { _, _ -> ProductsResponse in
            let catalog = try await engine.currentCatalog()
            let settings = await engine.settings
            return ProductsResponse(catalog: catalog, storefront: Storefront.named(settings.storefront))
        }
        DeviceRoutes(engine: engine, feed: changeFeed ?? ChangeFeed(following: engine)).add(to: router)
        ControlRoutes(engine: engine, notificationSender: notificationSender).add(to: router)
        TransactionManagerRoutes(
            engine: engine, notificationSender: notificationSender, tenants: tenants, basePath: basePath, serverStoreName: serverStoreName
        ).add(to: router)
        ServerAPIRoutes(
            engine: engine, authenticator: authenticator, notificationSender: notificationSender, logger: logger
        ).add(to: router)
        addVerifyReceiptRoutes(to: router)
        RetentionMessagingRoutes(engine: engine, authenticator: authenticator, logger: logger).add(to: router)
        AdvancedCommerceRoutes(engine: engine, authenticator: authenticator, logger: logger).add(to: router)
        ExternalPurchaseRoutes(engine: engine, authenticator: authenticator, logger: logger).add(to: router)
        return router
    }

    /// What every listener serves: the routes, behind Apple's host names (``AppleHostResponder``).
    func makeResponder() -> some HTTPResponder<StoreRequestContext> {
        // With tenants, an App Store Server API request at Apple's paths goes to the tenant its key belongs to.
        AppleHostResponder(next: makeRouter().buildResponder(), keyOwner: tenants == nil ? nil : Self.keyOwner(in: engine.storage))
    }

    /// The tenant a key identifier belongs to in `storage`: `nil` for a server-wide key, an unknown one, or a storage
    /// that cannot be read (the bare paths then check the token, and say why they refuse it).
    private static func keyOwner(in storage: any Storage) -> @Sendable (String) async -> String? {
        { keyID in
            guard let stored = try? await storage.apiKey(id: keyID), !stored.isServerWide else { return nil }
            return stored.tenant
        }
    }

    /// The plain HTTP application to run, for example with `runService()`, which stops gracefully on SIGINT and
    /// SIGTERM. ``run(onListening:onListenerFailure:)`` runs ``https`` beside it.
    ///
    /// - Parameter onListening: called with the bound port once the server accepts connections.
    public func makeApplication(onListening: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        plainApplication(responder: makeResponder(), onListening: { _, port in await onListening(port) })
    }

    /// The application of one listener, to run or to test on its own: ``https`` must be set for `.https`.
    ///
    /// - Throws: ``ListenerFailure`` for `.https` when ``https`` is not set or its certificate does not load.
    public func makeApplication(listener: StoreListener, onListening: @escaping @Sendable (Int) async -> Void = { _ in }) throws -> some ApplicationProtocol {
        try application(listener, responder: makeResponder(), onListening: { _, port in await onListening(port) })
    }
}
/// The body of `GET /health`.
public struct HealthResponse: ResponseCodable, Equatable {
    /// Always `ok` while the server answers.
    public var status: String
    /// The OpenStoreKit version.
    public var version: String
    /// The store clock's current date, in ISO 8601.
    public var now: String

    /// Creates a health report.
    public init(status: String, version: String, now: Date) {
        self.status = status
        self.version = version
        self.now = now.formatted(.iso8601)
    }
}

/// The body of `GET /v1/products`: the catalog.
public struct ProductsResponse: ResponseCodable, Equatable {
    /// One product as the server describes it.
    public struct Product: Codable, Equatable, Sendable {
        /// The product identifier.
        public var id: String
        /// Apple's product type name, e.g. `Non-Consumable`.
        public var type: String
        /// The internal reference name.
        public var referenceName: String
        /// The price as a decimal string, e.g. `4.99`.
        public var price: String
        /// The storefront's currency.
        public var currency: String?
        /// Whether family members share the purchase.
        public var familyShareable: Bool
        /// Localized names and descriptions.
        public var localizations: [LocalizedText]
        /// Group, level and period, for auto-renewable subscriptions.
        public var subscription: Subscription?
    }

    /// Where an auto-renewable subscription sits in its group, and how long it runs.
    public struct Subscription: Codable, Equatable, Sendable {
        /// The subscription group's identifier.
        public var groupID: String
        /// The level in the group; 1 is the highest.
        public var level: Int
        /// The period in ISO 8601, e.g. `P1M`.
        public var period: String
    }

    /// The catalog's products in configuration order.
    public var products: [Product]

    /// Describes `catalog` with prices in `storefront`'s currency.
    public init(catalog: Catalog, storefront: Storefront?) {
        products = catalog.products.map { product in
            Product(
                id: product.id, type: product.type.rawValue, referenceName: product.referenceName,
                price: "\(product.price)", currency: storefront?.currency, familyShareable: product.isFamilyShareable,
                localizations: product.localizations,
                subscription: product.subscription.map { Subscription(groupID: $0.groupID, level: $0.level, period: $0.period.iso8601) }
            )
        }
    }
}
