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
        /// `POST /control/purchases` of a consumable, for a thousand accounts in turn.
        case purchases
        /// App Store Server API `GET /inApps/v1/transactions/{id}`, with a bearer token of the given key.
        case transactionInfo = "transaction-info"
        /// `POST /verifyReceipt` with an app receipt the server issued.
        case verifyReceipt = "verify-receipt"
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

    /// How a run went.
    struct Outcome {
        var sent = 0
        var failed = 0
        var firstFailure: String?
        var latencies = Histogram<UInt64>(lowestDiscernibleValue: 1, highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three)
    }

    func run() async throws {
        guard let host = server.host, server.scheme == "http" else {
            throw FormatsCLI.failure("--server must be an http:// URL such as http://127.0.0.1:8080, not \(server.absoluteString).")
        }
        let port = server.port ?? 80
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let request: @Sendable (Int) -> LoadRequest
        do {
            request = try await prepare(client)
            try await client.shutdown()
        } catch {
            try? await client.shutdown()
            throw error
        }
        print("http \(workload.rawValue) against \(server.absoluteString): " + (rate.map { "\(Int($0)) requests/s" } ?? "\(connections) connections, as fast as answered"))
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
        let elapsed = started.duration(to: clock.now)
        report(outcome, elapsed: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
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
            let requests = (0..<Self.purchaseAccounts).map { account in
                request(ControlOperation.purchase, json: [
                    "productId": productID, "bundleId": bundleID, "account": "bench-\(account)",
                ])
            }
            return { index in requests[index % requests.count] }
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
        let base = server.path.hasSuffix("/") ? server.path : server.path + "/"
        var request = LoadRequest(method: method, target: base + target, headers: ["Host": authority], body: nil)
        if let json, let data = try? JSONSerialization.data(withJSONObject: json) {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.headers.add(name: "Content-Length", value: String(data.count))
            request.body = ByteBuffer(bytes: data)
        }
        return request
    }

    /// A request for a control API operation, at the path its document gives it.
    private func request(_ operation: ControlOperation, json: [String: String]) -> LoadRequest {
        request(String(operation.path().dropFirst()), method: HTTPMethod(rawValue: operation.method.rawValue), json: json)
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

    private func report(_ outcome: Outcome, elapsed: Double) {
        func milliseconds(_ percentile: Double) -> String {
            String(format: "%.2f", Double(outcome.latencies.valueAtPercentile(percentile)) / 1e6)
        }
        print("""
              \(outcome.sent) requests in \(String(format: "%.2f", elapsed)) s = \(String(format: "%.0f", Double(outcome.sent) / elapsed))/s; \
            \(outcome.failed) failed
              latency ms: p50 \(milliseconds(50))  p90 \(milliseconds(90))  p99 \(milliseconds(99))  p99.9 \(milliseconds(99.9))  \
            max \(String(format: "%.2f", Double(outcome.latencies.max) / 1e6))
            """)
        if let failure = outcome.firstFailure { print("  first failure: \(failure)") }
    }
}

extension Data {
    /// Base64 with the URL alphabet and no padding, as JWS uses.
    fileprivate func base64URLEncoded() -> String {
        base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
