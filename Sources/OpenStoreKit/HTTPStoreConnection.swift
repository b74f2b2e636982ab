public import AppStoreEngine
import AppStoreDeviceProtocol
public import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A ``StoreConnection`` to a store that `storekit serve` runs, over the device protocol (`DeviceProtocol`).
///
/// This is what `OPENSTOREKIT_SERVER` sets up: the app process keeps its device state (unfinished transactions are
/// the server's, the receipt file and downloads are the device's) while the store — catalog, clock, purchases,
/// subscriptions — lives in the server, where a backend, the CLI and the control API see the same purchases.
///
/// Changes reach the device through a long poll of `device/changes`. When the server goes away the connection keeps
/// trying, with a growing pause of at most two seconds; when it is back, the device looks at everything, since it
/// cannot know what it missed. A call made while the server is down fails with `StoreError.storeUnreachable`, which
/// the payment queue reports as `SKError.cloudServiceNetworkConnectionFailed`.
public final class HTTPStoreConnection: StoreConnection {
    /// The store's base URL: the server's (`http://127.0.0.1:8080/`) or one of its tenants'
    /// (`http://127.0.0.1:8080/t/my-test/`).
    public let baseURL: URL
    /// The folder of hosted content packages (`<product ID>/`) the device copies `SKDownload` content from.
    public let hostedContentDirectory: URL?
    private let session: URLSession
    private let changeWait: Duration

    /// Connects to the store at `baseURL`.
    ///
    /// - Parameters:
    ///   - baseURL: The server's URL, or a tenant's (``storeURL(server:tenant:)`` builds one).
    ///   - hostedContentDirectory: A folder holding `<product ID>/` content packages for `SKDownload`.
    ///   - changeWait: How long each long poll for changes may wait on the server before it answers with none.
    public init(baseURL: URL, hostedContentDirectory: URL? = nil, changeWait: Duration = .seconds(20)) {
        self.baseURL = baseURL.path.hasSuffix("/") ? baseURL : baseURL.appendingPathComponent("", isDirectory: true)
        self.hostedContentDirectory = hostedContentDirectory
        self.changeWait = changeWait
        let configuration = URLSessionConfiguration.ephemeral
        // A long poll holds one connection for as long as it waits; calls use the others.
        configuration.httpMaximumConnectionsPerHost = 8
        configuration.timeoutIntervalForRequest = 30
        session = URLSession(configuration: configuration)
    }

    deinit {
        session.invalidateAndCancel()
    }

    /// The base URL of `tenant`'s store on the server at `server`, or of the server's own store when `tenant` is
    /// `nil` or `default`.
    public static func storeURL(server: URL, tenant: String?) -> URL {
        guard let tenant, tenant != StoreDefaults.tenant else { return server }
        return server.appendingPathComponent("t", isDirectory: true).appendingPathComponent(tenant, isDirectory: true)
    }

    /// The store's settings.
    public func settings() async throws(StoreError) -> StoreSettings {
        try await call("GET", DeviceProtocol.Route.settings)
    }

    /// The catalog's products among `identifiers`, in catalog order.
    public func products(for identifiers: Set<String>) async throws(StoreError) -> [CatalogProduct] {
        guard !identifiers.isEmpty else { return [] }
        return try await call("GET", DeviceProtocol.Route.products, query: identifiers.sorted().map { URLQueryItem(name: "id", value: $0) })
    }

    /// The account, created with the store's storefront on first use.
    public func account(_ id: String) async throws(StoreError) -> Account {
        try await call("GET", DeviceProtocol.Route.account, query: [URLQueryItem(name: "id", value: id)])
    }

    /// Buys through the server; the transaction is committed before this returns.
    public func purchase(_ request: PurchaseRequest) async throws(StoreError) -> TransactionRecord {
        try await call("POST", DeviceProtocol.Route.purchases, body: request)
    }

    /// Marks the transaction finished on the device.
    public func finish(transactionID: UInt64, deviceID: UUID) async throws(StoreError) {
        let _: Empty = try await call("POST", DeviceProtocol.Route.finish, body: FinishRequest(transactionID: transactionID, deviceID: deviceID))
    }

    /// The device's unfinished transactions for the account and app.
    public func unfinishedTransactions(accountID: String, bundleID: String, deviceID: UUID) async throws(StoreError) -> [TransactionRecord] {
        try await call("GET", DeviceProtocol.Route.unfinished, query: Self.scope(accountID, bundleID, deviceID))
    }

    /// The transactions that match the query.
    public func transactions(_ query: TransactionQuery) async throws(StoreError) -> [TransactionRecord] {
        try await call("POST", DeviceProtocol.Route.transactions, body: query)
    }

    /// Restores the account's purchases as new transactions on the device.
    public func restoreCompletedTransactions(accountID: String, bundleID: String, deviceID: UUID) async throws(StoreError) -> [TransactionRecord] {
        try await call("POST", DeviceProtocol.Route.restores, body: DeviceRequest(accountID: accountID, bundleID: bundleID, deviceID: deviceID))
    }

    /// The promoted purchases waiting for the app.
    public func purchaseIntents(accountID: String, bundleID: String) async throws(StoreError) -> [PurchaseIntentRecord] {
        try await call("GET", DeviceProtocol.Route.purchaseIntents, query: Self.scope(accountID, bundleID))
    }

    /// Removes a promoted purchase the device handed to its app.
    public func removePurchaseIntent(_ id: UUID) async throws(StoreError) {
        let _: Empty = try await call("DELETE", DeviceProtocol.Route.purchaseIntents, query: [URLQueryItem(name: "id", value: id.uuidString)])
    }

    /// Redeems an offer code outside any app.
    public func redeemOfferCode(_ code: String, accountID: String, bundleID: String) async throws(StoreError) -> TransactionRecord {
        try await call("POST", DeviceProtocol.Route.offerCodes, body: OfferCodeRequest(code: code, accountID: accountID, bundleID: bundleID))
    }

    /// The account's auto-renewable subscriptions in the app.
    public func subscriptions(accountID: String, bundleID: String) async throws(StoreError) -> [SubscriptionRecord] {
        try await call("GET", DeviceProtocol.Route.subscriptions, query: Self.scope(accountID, bundleID))
    }

    /// The receipt the server signs for the device, for the app's version (`CFBundleVersion`, else `1`).
    public func appReceipt(accountID: String, bundleID: String, deviceID: UUID) async throws(StoreError) -> Data {
        let query = Self.scope(accountID, bundleID, deviceID) + [URLQueryItem(name: "version", value: StoreEnvironment.appVersion)]
        return try await send("GET", DeviceProtocol.Route.receipt, query: query, body: nil)
    }

    /// The roots of the server's certificate authority.
    public func rootCertificates() async throws(StoreError) -> [Data] {
        try await call("GET", DeviceProtocol.Route.rootCertificates)
    }

    /// Transactions the server signs for the device.
    public func signedTransactions(_ ids: [UInt64], deviceID: UUID) async throws(StoreError) -> [String] {
        guard !ids.isEmpty else { return [] }
        return try await call("POST", DeviceProtocol.Route.signedTransactions, body: SignedTransactionsRequest(transactionIDs: ids, deviceID: deviceID))
    }

    /// Renewal info the server signs for the device.
    public func signedRenewalInfo(subscriptionIDs: [UInt64], deviceID: UUID) async throws(StoreError) -> [String] {
        guard !subscriptionIDs.isEmpty else { return [] }
        return try await call("POST", DeviceProtocol.Route.signedRenewalInfo, body: SignedRenewalInfoRequest(subscriptionIDs: subscriptionIDs, deviceID: deviceID))
    }

    /// The app transaction the server signs for the device.
    public func signedAppTransaction(accountID: String, bundleID: String, deviceID: UUID) async throws(StoreError) -> String {
        try await call("GET", DeviceProtocol.Route.appTransaction, query: Self.scope(accountID, bundleID, deviceID) + [URLQueryItem(name: "version", value: StoreEnvironment.appVersion)])
    }

    /// Sends the refund request to the server, which decides it.
    public func requestRefund(transactionID: UInt64, accountID: String, approve: Bool, reason: String?) async throws(StoreError) {
        let body = RefundRequest(transactionID: transactionID, accountID: accountID, approve: approve, reason: reason)
        let _: Empty = try await call("POST", DeviceProtocol.Route.refundRequests, body: body)
    }

    /// Asks the server for the token (an empty list when it issues none).
    public func externalPurchaseToken(
        tokenType: ExternalPurchaseTokenType?, accountID: String, bundleID: String
    ) async throws(StoreError) -> ExternalPurchaseTokenRecord? {
        let body = ExternalPurchaseTokenRequest(accountID: accountID, bundleID: bundleID, tokenType: tokenType?.rawValue)
        let tokens: [ExternalPurchaseTokenRecord] = try await call("POST", DeviceProtocol.Route.externalPurchaseTokens, body: body)
        return tokens.first
    }

    /// The package `<hostedContentDirectory>/<product ID>/`, if there is one.
    public func hostedContent(productID: String) async throws(StoreError) -> HostedContent? {
        hostedContentDirectory.flatMap { HostedContent.package(productID: productID, in: $0) }
    }

    /// The server's changes, read with long polls from the moment this returns; `.other` after each reconnection.
    public func changes() async -> AsyncStream<StoreChange> {
        let (stream, continuation) = AsyncStream.makeStream(of: StoreChange.self, bufferingPolicy: .unbounded)
        // The first poll answers at once with the server's position, so no change after this method returns is missed.
        let start = try? await poll(after: nil)
        let task = Task { [weak self] in
            var position = start
            var failures = 0
            while !Task.isCancelled, let self {
                do {
                    let batch = try await self.poll(after: position)
                    if position == nil || failures > 0 { continuation.yield(.other) }
                    failures = 0
                    position = batch
                    for change in batch.changes {
                        switch change {
                        case .transactions(let records): continuation.yield(.transactions(records))
                        case .subscriptions(let subscriptions): continuation.yield(.subscriptions(subscriptions))
                        case .other: continuation.yield(.other)
                        }
                    }
                } catch {
                    failures += 1
                    try? await Task.sleep(for: .milliseconds(min(2_000, 50 << min(failures, 6))))
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    // MARK: Transport

    private func poll(after position: ChangeBatch?) async throws(StoreError) -> ChangeBatch {
        var query: [URLQueryItem] = []
        if let position {
            query = [
                URLQueryItem(name: "epoch", value: position.epoch.uuidString), URLQueryItem(name: "after", value: String(position.sequence)),
                URLQueryItem(name: "wait", value: String(changeWait.components.seconds)),
            ]
        }
        let seconds = Double(changeWait.components.seconds) + 15
        return try await call("GET", DeviceProtocol.Route.changes, query: query, timeout: position == nil ? nil : seconds)
    }

    private static func scope(_ accountID: String, _ bundleID: String, _ deviceID: UUID? = nil) -> [URLQueryItem] {
        var items = [URLQueryItem(name: "account", value: accountID), URLQueryItem(name: "bundle", value: bundleID)]
        if let deviceID { items.append(URLQueryItem(name: "device", value: deviceID.uuidString)) }
        return items
    }

    private struct Empty: Codable {}

    private func call<Answer: Decodable>(
        _ method: String, _ route: String, query: [URLQueryItem] = [], timeout: TimeInterval? = nil
    ) async throws(StoreError) -> Answer {
        try decode(try await send(method, route, query: query, body: nil, timeout: timeout), route: route)
    }

    private func call<Answer: Decodable>(_ method: String, _ route: String, body: some Encodable) async throws(StoreError) -> Answer {
        let data: Data
        do {
            data = try DeviceProtocol.makeEncoder().encode(body)
        } catch {
            throw StoreError.storeUnreachable("Cannot encode the body of \(route): \(error)")
        }
        return try decode(try await send(method, route, query: [], body: data), route: route)
    }

    private func decode<Answer: Decodable>(_ data: Data, route: String) throws(StoreError) -> Answer {
        do {
            return try DeviceProtocol.makeDecoder().decode(Answer.self, from: data)
        } catch {
            throw StoreError.storeUnreachable("The answer of \(baseURL.absoluteString)\(route) is not the device protocol's \(Answer.self): \(error). Is the server an OpenStoreKit `storekit serve` of the same version?")
        }
    }

    /// Sends a request and returns the body of a 2xx answer; a refusal becomes the store's error.
    private func send(_ method: String, _ route: String, query: [URLQueryItem], body: Data?, timeout: TimeInterval? = nil) async throws(StoreError) -> Data {
        var components = URLComponents(url: baseURL.appendingPathComponent(route), resolvingAgainstBaseURL: false)
        if !query.isEmpty { components?.queryItems = query }
        guard let url = components?.url else {
            throw StoreError.storeUnreachable("\(baseURL.absoluteString) is not a URL a store can be reached at.")
        }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue(DeviceProtocol.version, forHTTPHeaderField: DeviceProtocol.versionHeader)
        if let timeout { request.timeoutInterval = timeout }
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await Self.load(request, in: session)
        } catch {
            throw StoreError.storeUnreachable("Cannot reach the store at \(baseURL.absoluteString): \(error.localizedDescription). Start it with `storekit serve`, or check OPENSTOREKIT_SERVER.")
        }
        guard let http = response as? HTTPURLResponse else {
            throw StoreError.storeUnreachable("\(url.absoluteString) did not answer over HTTP.")
        }
        guard (200..<300).contains(http.statusCode) else {
            if let refusal = try? DeviceProtocol.makeDecoder().decode(DeviceErrorBody.self, from: data),
               let error = StoreError(identifier: refusal.error, message: refusal.message) {
                throw error
            }
            let text = String(decoding: data.prefix(300), as: UTF8.self)
            throw StoreError.storeUnreachable("\(method) \(url.absoluteString) answered \(http.statusCode): \(text)")
        }
        return data
    }

    /// Loads `request` with a data task; when the calling task is cancelled, throws `CancellationError` at once and
    /// leaves the request to end on its own (a long poll within ``changeWait``; the session's `deinit` cancels the rest).
    ///
    /// Not `URLSession.data(for:)`, and no `URLSessionTask.cancel()`: in swift-corelibs-foundation (Swift 6.3
    /// included), `data(for:)`'s cancellation handler calls `cancel()`, which waits for the work queue every session of
    /// the process shares while the Swift runtime holds the cancelled task's lock; a request finishing on that queue
    /// at the same moment needs the lock to resume the task, and both threads wait forever
    /// (swiftlang/swift-corelibs-foundation#5412). Cancelling the long poll when a payment queue went away did exactly
    /// that, and every HTTP call of the process then timed out. Calling `cancel()` later, from another thread, races
    /// with the request's own failure instead and stops the process ("a task that is not in the registry").
    private static func load(_ request: URLRequest, in session: URLSession) async throws -> (Data, URLResponse) {
        let waiter = Locked<CheckedContinuation<(Data, URLResponse), any Error>?>(nil)
        let resume = { @Sendable (result: Result<(Data, URLResponse), any Error>) in
            let continuation = waiter.withLock { waiter in
                defer { waiter = nil }
                return waiter
            }
            continuation?.resume(with: result)
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                waiter.withLock { $0 = continuation }
                guard !Task.isCancelled else { return resume(.failure(CancellationError())) }
                session.dataTask(with: request) { data, response, error in
                    if let error {
                        resume(.failure(error))
                    } else if let data, let response {
                        resume(.success((data, response)))
                    } else {
                        resume(.failure(URLError(.badServerResponse)))
                    }
                }.resume()
            }
        } onCancel: {
            resume(.failure(CancellationError()))
        }
    }
}
