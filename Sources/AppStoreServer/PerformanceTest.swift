import AppStoreEngine
import AppStoreFormats
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How a performance test of a Get Retention Message endpoint runs: Apple's `PerformanceTestConfig`.
///
/// Apple's test sends many requests over minutes. The local store sends few, as fast as the concurrency allows, so a
/// test finishes in a second or two; the defaults are the store's, not Apple's (Apple does not publish its numbers
/// except the response time, about 700 ms).
struct PerformanceTestSettings: Sendable, Hashable {
    /// How many requests are in flight at once.
    var maxConcurrentRequests = 2
    /// How many requests the test sends.
    var totalRequests = 10
    /// How long the endpoint has to answer, in milliseconds; a slower answer, or none, counts as `TIMED_OUT`.
    var responseTimeThreshold = 700
    /// The percentage of requests that must succeed for the test to pass.
    var successRateThreshold = 90

    /// The store's settings: 10 requests, 2 at a time, 700 ms each, 90 % to pass.
    static let standard = PerformanceTestSettings()

    /// The longest the test can take, in milliseconds: every round of concurrent requests waiting out its answer
    /// (the threshold, rounded up to seconds, and one second more).
    var totalDuration: Int {
        (totalRequests + maxConcurrentRequests - 1) / max(maxConcurrentRequests, 1) * ((responseTimeThreshold + 999) / 1000 + 1) * 1000
    }
}

/// The payload of a Get Retention Message request, signed into `signedPayload`: Apple's `DecodedRealtimeRequestBody`.
struct RealtimeRequestPayload: Codable, Sendable {
    var originalTransactionId: String
    var appAppleId: Int64
    var productId: String
    var userLocale: String
    var requestIdentifier: UUID
    var signedDate: Date
    var environment: String
}

/// The body the App Store POSTs to a Get Retention Message endpoint: Apple's `RealtimeRequestBody`.
private struct RealtimeRequestBody: Encodable {
    var signedPayload: String
}

/// A performance test of an app's Get Retention Message endpoint: POSTs signed Get Retention Message requests for one
/// subscription, as the App Store does when a customer views it, and times each answer.
struct PerformanceTest: Sendable {
    /// The `requestId` the API hands out.
    let id: UUID
    /// The endpoint under test.
    let target: URL
    let settings: PerformanceTestSettings
    /// What every request says, but its `requestIdentifier` and `signedDate`.
    let payload: RealtimeRequestPayload
    let signer: JWSSigner
    let clock: any StoreClock

    /// Sends the requests, at most ``PerformanceTestSettings/maxConcurrentRequests`` at a time, and hands each
    /// outcome to `record` as it comes.
    func run(record: @escaping @Sendable (PerformanceTestRun.Outcome) async -> Void) async {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = waitLimit
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        await withTaskGroup(of: PerformanceTestRun.Outcome.self) { group in
            var sent = 0
            while sent < min(settings.maxConcurrentRequests, settings.totalRequests) {
                group.addTask { await send(with: session) }
                sent += 1
            }
            while let outcome = await group.next() {
                await record(outcome)
                if sent < settings.totalRequests {
                    group.addTask { await send(with: session) }
                    sent += 1
                }
            }
        }
    }

    /// How long a request waits for its answer, in whole seconds: a second more than the threshold, so a late answer
    /// is still timed (it counts as `TIMED_OUT`). Whole seconds, because URLSession on Linux rounds shorter timeouts
    /// down to none and fails at once.
    private var waitLimit: TimeInterval {
        TimeInterval((settings.responseTimeThreshold + 999) / 1000 + 1)
    }

    /// Signs and POSTs one request; names the outcome as Apple's `sendAttemptResult` does.
    private func send(with session: URLSession) async -> PerformanceTestRun.Outcome {
        var payload = payload
        payload.requestIdentifier = UUID()
        payload.signedDate = clock.now()
        var request = URLRequest(url: target, timeoutInterval: waitLimit)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        // No `Expect: 100-continue` (curl, under URLSession on Linux, asks for it on bodies over 1 KB): a server that
        // does not answer it would make every request wait a second, longer than the endpoint has.
        request.setValue("", forHTTPHeaderField: "Expect")
        do {
            request.httpBody = try AppStoreJSON.encode(RealtimeRequestBody(signedPayload: try signer.sign(payload)))
        } catch {
            return PerformanceTestRun.Outcome(result: "OTHER", milliseconds: nil)
        }
        let start = ContinuousClock.now
        do {
            let (data, response) = try await session.data(for: request)
            let elapsed = start.duration(to: .now)
            let milliseconds = Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
            guard (response as? HTTPURLResponse)?.statusCode == 200 else {
                return PerformanceTestRun.Outcome(result: "UNSUCCESSFUL_HTTP_RESPONSE_CODE", milliseconds: milliseconds)
            }
            guard milliseconds <= settings.responseTimeThreshold else { return PerformanceTestRun.Outcome(result: "TIMED_OUT", milliseconds: milliseconds) }
            // Apple's RealtimeResponseBody is a JSON object; an empty body asks for the default message.
            guard data.isEmpty || (try? JSONSerialization.jsonObject(with: data)) is [String: Any] else {
                return PerformanceTestRun.Outcome(result: "INVALID_RESPONSE", milliseconds: milliseconds)
            }
            return PerformanceTestRun.Outcome(result: "SUCCESS", milliseconds: milliseconds)
        } catch let error as URLError {
            switch error.code {
            case .timedOut: return PerformanceTestRun.Outcome(result: "TIMED_OUT", milliseconds: Int(waitLimit * 1000))
            case .cannotConnectToHost, .cannotFindHost, .notConnectedToInternet, .dnsLookupFailed: return PerformanceTestRun.Outcome(result: "NO_RESPONSE", milliseconds: nil)
            case .networkConnectionLost: return PerformanceTestRun.Outcome(result: "PREMATURE_CLOSE", milliseconds: nil)
            case .httpTooManyRedirects, .redirectToNonExistentLocation: return PerformanceTestRun.Outcome(result: "CIRCULAR_REDIRECT", milliseconds: nil)
            case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateNotYetValid,
                 .serverCertificateHasUnknownRoot:
                return PerformanceTestRun.Outcome(result: "TLS_ISSUE", milliseconds: nil)
            case .badServerResponse, .cannotParseResponse: return PerformanceTestRun.Outcome(result: "INVALID_RESPONSE", milliseconds: nil)
            default: return PerformanceTestRun.Outcome(result: "OTHER", milliseconds: nil)
            }
        } catch {
            return PerformanceTestRun.Outcome(result: "OTHER", milliseconds: nil)
        }
    }
}

/// A performance test as far as it has run, and its result as Apple reports it.
struct PerformanceTestRun: Sendable {
    /// One request's outcome: Apple's `sendAttemptResult`, and how long the answer took when there was one.
    struct Outcome: Sendable {
        var result: String
        var milliseconds: Int?
    }

    let target: URL
    let settings: PerformanceTestSettings
    var outcomes: [Outcome] = []

    /// Whether every request has its outcome.
    var isFinished: Bool { outcomes.count >= settings.totalRequests }

    /// Requests still waiting for an outcome.
    var pendingCount: Int { max(settings.totalRequests - outcomes.count, 0) }

    /// The percentage of the test's requests that succeeded so far (whole percent, rounded down).
    var successRate: Int {
        guard settings.totalRequests > 0 else { return 0 }
        return outcomes.filter { $0.result == "SUCCESS" }.count * 100 / settings.totalRequests
    }

    /// `PENDING` until every request is done, then `PASS` when the success rate reaches the threshold, else `FAIL`.
    var status: String {
        guard isFinished else { return "PENDING" }
        return successRate >= settings.successRateThreshold ? "PASS" : "FAIL"
    }

    /// How many requests failed, by `sendAttemptResult`.
    var failures: [String: Int] {
        outcomes.filter { $0.result != "SUCCESS" }.reduce(into: [:]) { counts, outcome in counts[outcome.result, default: 0] += 1 }
    }

    /// The average and the 50th, 90th, 95th and 99th percentiles (nearest rank) of the answers' times, in
    /// milliseconds; `nil` before any answer.
    var responseTimes: (average: Int, p50: Int, p90: Int, p95: Int, p99: Int)? {
        let times = outcomes.compactMap(\.milliseconds).sorted()
        guard !times.isEmpty else { return nil }
        func percentile(_ rank: Int) -> Int {
            times[max((rank * times.count + 99) / 100 - 1, 0)]
        }
        return (times.reduce(0, +) / times.count, percentile(50), percentile(90), percentile(95), percentile(99))
    }
}
