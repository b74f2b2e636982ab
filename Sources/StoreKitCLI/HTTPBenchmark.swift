import AppStoreEngine
import AppStoreServer
import HTTPTypes
import AsyncHTTPClient
import Crypto
import Foundation
import Histogram
import NIOCore
import NIOHTTP1

/// `storekit bench http`: a running server driven over loopback, as app servers and devices drive it, with the
/// throughput and the latency distribution (an HDR histogram) of what it answered.
///
/// Two ways to load it (see ``LoadDriver``): a closed loop over `connections` connections, each sending its next
/// request when the last was answered (the most the server takes), or an open loop at a fixed `rate`, each request
/// falling due at its scheduled time whatever became of the earlier ones and going out on the next free connection,
/// with its latency counted from when it fell due, so a server that stalls shows it in the tail instead of slowing the
/// load down (coordinated omission).
struct HTTPBenchmark {
    /// What the requests do.
    enum Workload: String, CaseIterable {
        /// `POST /control/purchases` of a consumable, for a thousand accounts in turn; with `tenants`, spread over
        /// that many tenants in turn (`/t/bench-0/`, `/t/bench-1/`, …), each made on first use before the load.
        case purchases
        /// App Store Server API `GET /inApps/v1/transactions/{id}`, with a bearer token of the given key.
        case transactionInfo = "transaction-info"
        /// `POST /verifyReceipt` with an app receipt the server issued.
        case verifyReceipt = "verify-receipt"
        /// `POST /control/tenants` for `tenants` new tenants, then one purchase in each, with the server's memory
        /// and open descriptors before and after (see ``HTTPBenchmark/runTenants()``).
        case tenants
    }

    /// A key of the server's App Store Server API key ring (see `storekit keys create`).
    struct APIKey {
        var file: String
        var id: String
        var issuer: String
    }

    var server: URL
    var workload: Workload
    var requests: Int
    var seconds: Double
    var connections: Int
    var rate: Double?
    var productID: String
    var bundleID: String
    var apiKey: APIKey?
    /// purchases: how many tenants the purchases are spread over (nil: the server's own store, on its bare paths);
    /// tenants: how many tenants to make.
    var tenants: Int?
    /// tenants: the `.storekit` file each tenant sells, sent as `configuration` (nil: the server's catalog).
    var configurationFile: String?
    /// tenants: the server's process, for its memory and descriptors (nil: the one listening on the server's port).
    var serverPID: Int32?
    /// tenants: how long to leave the tenants idle before measuring the server again (nil: no wait).
    var idleSeconds: Double?
    /// tenants: whether to leave the tenants on the server rather than delete them last.
    var keepTenants = false
    /// For purchases on PostgreSQL: pgbench's rate on the same database, measured just before and just after the
    /// purchases.
    var pgbench: PgbenchReference?

    /// How a run went.
    struct Outcome {
        var sent = 0
        var failed = 0
        var firstFailure: String?
        var latencies = Histogram<UInt64>(lowestDiscernibleValue: 1, highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three)
    }

    func run() async throws {
        let (host, port) = try hostAndPort()
        if workload == .tenants { return try await runTenants() }
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let request: @Sendable (Int) -> LoadRequest
        do {
            request = try await prepare(client)
            try await client.shutdown()
        } catch {
            try? await client.shutdown()
            throw error
        }
        print("http \(workload.rawValue) against \(server.absoluteString): " + (rate.map { "\(Int($0)) requests/s" } ?? "\(connections) connections, as fast as answered")
            + (workload == .purchases ? tenants.map { ", over \($0) tenant\($0 == 1 ? "" : "s") \(Self.tenantName(0))…\(Self.tenantName($0 - 1))" } ?? "" : ""))
        if workload == .purchases, let tenants {
            // Each tenant is made on first use, by its first purchase: that cost is the tenants workload's, so it is
            // paid here, before the load is timed.
            let (outcome, elapsed) = try await runToCompletion(host: host, port: port, count: tenants, request: request)
            report(outcome, elapsed: elapsed, label: "warm-up, one purchase in each tenant (made on first use)")
        }
        // pgbench on both sides of the purchases: on a shared machine the database's own rate drifts within minutes,
        // and the purchases are set against the mean of the two rates that bracket them.
        let pgbenchBefore = try await pgbench?.measure()
        let clock = ContinuousClock()
        let started = clock.now
        let pacing: LoadDriver.Pacing
        let count: Int
        if let rate {
            pacing = .openLoop(rate: rate)
            count = min(requests, Int(seconds * rate))
        } else {
            pacing = .closedLoop(deadline: .now() + .milliseconds(Int64(seconds * 1_000)))
            count = requests
        }
        let outcome = try await LoadDriver.run(host: host, port: port, connections: connections, count: count, pacing: pacing, request: request)
        let elapsed = Self.seconds(started.duration(to: clock.now))
        report(outcome, elapsed: elapsed)
        if let pgbench, let pgbenchBefore {
            let pgbenchAfter = try await pgbench.measure()
            let mean = (pgbenchBefore.transactionsPerSecond + pgbenchAfter.transactionsPerSecond) / 2
            let share = Double(outcome.sent) / elapsed / mean
            print("""
                  pgbench tpcb-like on the same database (scale 1, \(pgbench.clients) clients, \(pgbench.transactionsPerClient) transactions each, fsync=\(pgbenchAfter.fsync)): \
                \(String(format: "%.0f", mean)) tps, the mean of \(String(format: "%.0f", pgbenchBefore.transactionsPerSecond)) just before the purchases \
                and \(String(format: "%.0f", pgbenchAfter.transactionsPerSecond)) just after
                  purchases: \(String(format: "%.0f", share * 100))% of pgbench's rate
                """)
        }
    }

    /// The server's host and port, from an http URL.
    func hostAndPort() throws -> (host: String, port: Int) {
        guard let host = server.host, server.scheme == "http" else {
            throw FormatsCLI.failure("--server must be an http:// URL such as http://127.0.0.1:8080, not \(server.absoluteString).")
        }
        return (host, server.port ?? 80)
    }

    /// Sends `count` requests over the connections, each as soon as one is free, until all were answered (whatever
    /// `seconds` says: a phase of the tenants workload must make every tenant), and returns what was answered and
    /// how long it took in seconds.
    func runToCompletion(
        host: String, port: Int, count: Int, request: @escaping @Sendable (Int) -> LoadRequest
    ) async throws -> (HTTPBenchmark.Outcome, Double) {
        let clock = ContinuousClock()
        let started = clock.now
        let outcome = try await LoadDriver.run(
            host: host, port: port, connections: connections, count: count, pacing: .closedLoop(deadline: .distantFuture), request: request
        )
        return (outcome, Self.seconds(started.duration(to: clock.now)))
    }

    /// A duration in seconds.
    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// The name of the `index`-th tenant the purchases workload spreads over: `bench-<index>`.
    static func tenantName(_ index: Int) -> String {
        "bench-\(index)"
    }

    // MARK: The requests

    /// How many accounts the purchases workload buys for, in turn.
    private static let purchaseAccounts = 1_000

    /// Makes what the workload needs on the server (a purchase to read, a receipt to verify) and returns a maker
    /// of the workload's `index`-th request.
    ///
    /// The requests are built here, once: the load generator shares the machine with the server, and building a URL
    /// and a JSON body for every request took CPU time the server could have used.
    private func prepare(_ client: HTTPClient) async throws -> @Sendable (Int) -> LoadRequest {
        let productID = productID, bundleID = bundleID
        switch workload {
        case .purchases:
            // Over tenants, the k-th request buys in tenant k mod N for account k mod 1000: enough requests that
            // both cycles come round (N of them when N is at least the number of accounts).
            let tenants = tenants ?? 1
            let count = self.tenants == nil ? Self.purchaseAccounts : tenants * ((Self.purchaseAccounts + tenants - 1) / tenants)
            let requests = (0..<count).map { index in
                request(ControlOperation.purchase, tenant: self.tenants == nil ? nil : Self.tenantName(index % tenants), json: [
                    "productId": productID, "bundleId": bundleID, "account": "bench-\(index % Self.purchaseAccounts)",
                ])
            }
            return { index in requests[index % requests.count] }
        case .tenants:
            preconditionFailure("the tenants workload prepares its requests in runTenants()")
        case .transactionInfo:
            guard let apiKey else {
                throw FormatsCLI.failure("transaction-info needs the server's API key: --key-file, --key-id and --issuer (make one with `storekit keys create`).")
            }
            let transactionID = try await purchase(client, account: "bench-reader")
            let token = try Self.bearerToken(apiKey, bundleID: bundleID)
            var request = request("inApps/v1/transactions/\(transactionID)", method: .GET)
            request.headers.add(name: "Authorization", value: "Bearer \(token)")
            return { [request] _ in request }
        case .verifyReceipt:
            _ = try await purchase(client, account: "bench-receipt")
            let receiptRequest = request("device/receipt?account=bench-receipt&bundle=\(bundleID)&device=\(UUID().uuidString)", method: .GET)
            let receipt = try await body(of: receiptRequest, through: client, "the app receipt")
            let request = request("verifyReceipt", method: .POST, json: ["receipt-data": Data(receipt.readableBytesView).base64EncodedString()])
            return { _ in request }
        }
    }

    /// Buys the benchmark's product for `account` and returns the transaction identifier.
    private func purchase(_ client: HTTPClient, account: String) async throws -> String {
        let request = request(ControlOperation.purchase, json: ["productId": productID, "bundleId": bundleID, "account": account])
        let body = try await body(of: request, through: client, "a purchase of \(productID) for \(bundleID)")
        guard let answer = try? JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any], let id = answer["transactionId"] as? String else {
            throw FormatsCLI.failure("The server's answer to a purchase has no transactionId: \(String(buffer: body))")
        }
        return id
    }

    /// The server's host and port, as the `Host` header names them.
    private var authority: String {
        "\(server.host ?? "127.0.0.1"):\(server.port ?? 80)"
    }

    /// A request for `target` (a path with its query) under the server URL's path.
    private func request(_ target: String, method: HTTPMethod, json: [String: String]? = nil) -> LoadRequest {
        request(target, method: method, body: json.flatMap { try? JSONSerialization.data(withJSONObject: $0) })
    }

    /// A request for `target` (a path with its query) under the server URL's path, with a JSON `body`.
    func request(_ target: String, method: HTTPMethod, body: Data?) -> LoadRequest {
        let base = server.path.hasSuffix("/") ? server.path : server.path + "/"
        var request = LoadRequest(method: method, target: base + target, headers: ["Host": authority], body: nil)
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.headers.add(name: "Content-Length", value: String(body.count))
            request.body = ByteBuffer(bytes: body)
        }
        return request
    }

    /// A request for a control API operation, at the path its document gives it: the server's own store's, or under
    /// `/t/{tenant}/` for a tenant's.
    func request(_ operation: ControlOperation, tenant: String? = nil, json: [String: String]) -> LoadRequest {
        request(operation, tenant: tenant, body: try? JSONSerialization.data(withJSONObject: json))
    }

    /// A request for a control API operation with a JSON `body` already encoded.
    func request(_ operation: ControlOperation, tenant: String? = nil, body: Data?) -> LoadRequest {
        let prefix = tenant.map { "t/\($0)" } ?? ""
        let path = operation.path()
        return request(prefix.isEmpty ? String(path.dropFirst()) : prefix + path, method: HTTPMethod(rawValue: operation.method.rawValue), body: body)
    }

    /// Sends `request` once, to set the workload up, and returns the answer's body.
    private func body(of request: LoadRequest, through client: HTTPClient, _ what: String) async throws -> ByteBuffer {
        var clientRequest = HTTPClientRequest(url: "http://\(authority)\(request.target)")
        clientRequest.method = request.method
        clientRequest.headers = request.headers
        clientRequest.body = request.body.map { .bytes($0) }
        let response = try await client.execute(clientRequest, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 4 << 20)
        guard (200..<300).contains(response.status.code) else {
            throw FormatsCLI.failure("The server refused \(what) with HTTP \(response.status.code): \(String(buffer: body))")
        }
        return body
    }

    /// An App Store Server API token for `bundleID`, valid for the hour Apple allows.
    private static func bearerToken(_ key: APIKey, bundleID: String) throws -> String {
        let pem: String
        do {
            pem = try String(contentsOfFile: key.file, encoding: .utf8)
        } catch {
            throw FormatsCLI.failure("Cannot read the key file \(key.file): \(error.localizedDescription)")
        }
        let privateKey: P256.Signing.PrivateKey
        do {
            privateKey = try P256.Signing.PrivateKey(pemRepresentation: pem)
        } catch {
            throw FormatsCLI.failure("\(key.file) is not a P-256 private key in PEM, as `storekit keys create` writes (SubscriptionKey_ID.p8).")
        }
        func encoded(_ object: [String: Any]) throws -> String {
            try JSONSerialization.data(withJSONObject: object, options: .sortedKeys).base64URLEncoded()
        }
        // The token is checked against the server's wall clock, whatever its store's clock says.
        let now = Int(SystemClock().now().timeIntervalSince1970)
        let signingInput = try encoded(["alg": "ES256", "kid": key.id, "typ": "JWT"]) + "."
            + encoded(["iss": key.issuer, "iat": now, "exp": now + 3_600, "aud": "appstoreconnect-v1", "bid": bundleID])
        let signature = try privateKey.signature(for: Data(signingInput.utf8)).rawRepresentation
        return signingInput + "." + signature.base64URLEncoded()
    }

    /// Prints a load's count, rate, failures and latency percentiles, under `label` when it is one phase of several
    /// (its lines then indented one step further), counting `unit` (requests, or what each request makes).
    func report(_ outcome: Outcome, elapsed: Double, label: String? = nil, unit: String = "requests") {
        func milliseconds(_ percentile: Double) -> String {
            String(format: "%.2f", Double(outcome.latencies.valueAtPercentile(percentile)) / 1e6)
        }
        let indent = label == nil ? "  " : "    "
        if let label { print("  \(label):") }
        let rate = String(format: "%.0f", Double(outcome.sent) / elapsed)
        print("""
            \(indent)\(outcome.sent) \(unit) in \(String(format: "%.2f", elapsed)) s = \(rate)\(unit == "requests" ? "" : " \(unit)")/s; \
            \(outcome.failed) failed
            \(indent)latency ms: p50 \(milliseconds(50))  p90 \(milliseconds(90))  p99 \(milliseconds(99))  p99.9 \(milliseconds(99.9))  \
            max \(String(format: "%.2f", Double(outcome.latencies.max) / 1e6))
            """)
        if let failure = outcome.firstFailure { print("\(indent)first failure: \(failure)") }
    }
}

extension Data {
    /// Base64 with the URL alphabet and no padding, as JWS uses.
    fileprivate func base64URLEncoded() -> String {
        base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
