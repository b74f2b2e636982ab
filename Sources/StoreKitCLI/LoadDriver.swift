import Foundation
import Histogram
import NIOCore
import NIOHTTP1
import NIOPosix

/// One request of a load, built once: `storekit bench http` sends the same few over and over.
struct LoadRequest: Sendable {
    var method: HTTPMethod
    /// The path and query, as the request line has them.
    var target: String
    /// Every header, `Host` included.
    var headers: HTTPHeaders
    var body: ByteBuffer?
}

/// Sends `storekit bench http`'s load over keep-alive HTTP/1.1 connections, all driven from one event-loop thread.
///
/// Why not AsyncHTTPClient, which sets the workload up: the load generator shares the machine's cores with the
/// server it measures, and through its connection pool, with a task and a body stream per request, a request cost
/// the generator a third of what the server spends on a purchase — CPU the server then did not have. Here a request
/// is a write of prebuilt parts and a parse of the answer, on one thread, with no lock and no task.
///
/// Two ways to load (see ``HTTPBenchmark``): a closed loop, where each connection sends its next request when the last
/// was answered, and an open loop, where requests fall due at a fixed rate and go out on the next free connection,
/// their latency counted from when they fell due.
enum LoadDriver {
    /// How the requests are paced.
    enum Pacing {
        /// Each connection sends its next request as soon as the last is answered, until `deadline`.
        case closedLoop(deadline: NIODeadline)
        /// Requests fall due `rate` per second from the start.
        case openLoop(rate: Double)
    }

    /// Sends `count` requests (`request(index)` for each index) to `host`:`port` over `connections` connections and
    /// returns what was answered, and how fast.
    static func run(
        host: String, port: Int, connections: Int, count: Int, pacing: Pacing,
        request: @escaping @Sendable (Int) -> LoadRequest
    ) async throws -> HTTPBenchmark.Outcome {
        let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        return try await eventLoop.flatSubmit {
            let load = Load(
                eventLoop: eventLoop, host: host, port: port, count: count, pacing: pacing, request: request
            )
            return load.start(connections: max(connections, 1))
        }.get()
    }
}

/// The state of a running load. Lives on its event loop: every method runs there.
private final class Load {
    let eventLoop: any EventLoop
    let host: String
    let port: Int
    let count: Int
    let pacing: LoadDriver.Pacing
    let request: (Int) -> LoadRequest
    let finished: EventLoopPromise<HTTPBenchmark.Outcome>

    var outcome = HTTPBenchmark.Outcome()
    /// How many requests were handed to a connection (closed loop) or fell due (open loop).
    var issued = 0
    var answered = 0
    var started = NIODeadline.now()
    /// Open loop: requests that fell due while every connection was busy, oldest first.
    var waiting = CircularBuffer<(index: Int, due: NIODeadline)>()
    var idle: [LoadConnection] = []
    var connected: [LoadConnection] = []
    var watchdog: Scheduled<Void>?
    var ended = false

    /// How long an answer may take before its connection is given up and the request counted as failed.
    static let requestTimeout = TimeAmount.seconds(30)

    init(
        eventLoop: any EventLoop, host: String, port: Int, count: Int, pacing: LoadDriver.Pacing,
        request: @escaping (Int) -> LoadRequest
    ) {
        self.eventLoop = eventLoop
        self.host = host
        self.port = port
        self.count = count
        self.pacing = pacing
        self.request = request
        finished = eventLoop.makePromise()
    }

    /// Opens the connections, then starts the load; the future ends with it.
    func start(connections: Int) -> EventLoopFuture<HTTPBenchmark.Outcome> {
        let opened = (0..<connections).map { _ in connect() }
        EventLoopFuture.andAllSucceed(opened, on: eventLoop).assumeIsolated().whenComplete { result in
            switch result {
            case .success:
                self.started = .now()
                self.watchForSlowAnswers()
                switch self.pacing {
                case .closedLoop:
                    for connection in self.idle { self.sendNext(on: connection) }
                case .openLoop:
                    self.releaseDueRequests()
                }
                self.finishIfDone()
            case .failure(let error):
                for connection in self.connected { connection.close() }
                self.finished.fail(
                    FormatsCLI.failure("Cannot connect to \(self.host):\(self.port): \(error). Is `storekit serve` running there?")
                )
            }
        }
        return finished.futureResult
    }

    private func connect() -> EventLoopFuture<Void> {
        let load = NIOLoopBound(self, eventLoop: eventLoop)
        return ClientBootstrap(group: eventLoop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(LoadConnection(load: load.value))
                }
            }
            .connect(host: host, port: port)
            .assumeIsolated()
            .flatMapThrowing { channel in
                let connection = try channel.pipeline.syncOperations.handler(type: LoadConnection.self)
                self.connected.append(connection)
                self.idle.append(connection)
            }
            .nonisolated()
    }

    // MARK: Pacing

    /// Closed loop: the connection's next request, unless the count was sent or the time is up.
    private func sendNext(on connection: LoadConnection) {
        guard case .closedLoop(let deadline) = pacing, issued < count, NIODeadline.now() < deadline else { return }
        idle.removeAll { $0 === connection }
        connection.send(request(issued), start: .now())
        issued += 1
    }

    /// Open loop: hands every request due by now to a free connection or to the waiting line, and wakes up when the
    /// next one falls due.
    private func releaseDueRequests() {
        guard case .openLoop(let rate) = pacing else { return }
        let now = NIODeadline.now()
        while issued < count {
            let due = dueTime(of: issued, rate: rate)
            guard due <= now else {
                eventLoop.assumeIsolated().scheduleTask(deadline: due) { self.releaseDueRequests() }
                return
            }
            if let connection = idle.popLast() {
                connection.send(request(issued), start: due)
            } else {
                waiting.append((issued, due))
            }
            issued += 1
        }
    }

    private func dueTime(of index: Int, rate: Double) -> NIODeadline {
        started + .nanoseconds(Int64(Double(index) / rate * 1e9))
    }

    // MARK: Answers

    /// A connection's request was answered (`failure` says why it did not succeed, if so); the connection is free.
    func answered(on connection: LoadConnection, start: NIODeadline, failure: String?) {
        record(since: start, failure: failure)
        if let (index, due) = waiting.popFirst() {
            connection.send(request(index), start: due)
        } else {
            idle.append(connection)
            sendNext(on: connection)
        }
        finishIfDone()
    }

    /// A connection was lost, with its request in flight if it had one: that request failed; the connection is
    /// replaced so the load goes on.
    func lost(_ connection: LoadConnection, inFlightSince start: NIODeadline?, error: String) {
        connected.removeAll { $0 === connection }
        idle.removeAll { $0 === connection }
        if let start { record(since: start, failure: error) }
        guard answered < issued || issued < count else { return finishIfDone() }
        connect().assumeIsolated().whenComplete { result in
            switch result {
            case .success:
                if let connection = self.idle.last {
                    if let (index, due) = self.waiting.popFirst() {
                        self.idle.removeLast()
                        connection.send(self.request(index), start: due)
                    } else {
                        self.sendNext(on: connection)
                    }
                }
            case .failure(let reconnection):
                // The server is gone: what was not sent yet never will be.
                self.outcome.firstFailure = self.outcome.firstFailure ?? "lost the connection (\(error)) and cannot reconnect: \(reconnection)"
                self.end()
            }
            self.finishIfDone()
        }
    }

    private func record(since start: NIODeadline, failure: String?) {
        answered += 1
        outcome.sent += 1
        _ = outcome.latencies.record(UInt64(max((NIODeadline.now() - start).nanoseconds, 1)))
        if let failure {
            outcome.failed += 1
            if outcome.firstFailure == nil { outcome.firstFailure = failure }
        }
    }

    /// Every second until the load ends: closes the connections whose answer is overdue; their requests count as failed.
    private func watchForSlowAnswers() {
        watchdog = eventLoop.assumeIsolated().scheduleTask(in: .seconds(1)) {
            let limit = NIODeadline.now() - Self.requestTimeout
            for connection in self.connected {
                if let start = connection.inFlightSince, start < limit { connection.close() }
            }
            self.watchForSlowAnswers()
        }
    }

    private func finishIfDone() {
        guard !ended else { return }
        let allSent = switch pacing {
        case .closedLoop(let deadline): issued == count || (NIODeadline.now() >= deadline && idle.count == connected.count)
        case .openLoop: issued == count && waiting.isEmpty
        }
        if allSent, answered == issued { end() }
    }

    private func end() {
        guard !ended else { return }
        ended = true
        watchdog?.cancel()
        watchdog = nil
        for connection in connected { connection.close() }
        connected = []
        idle = []
        finished.succeed(outcome)
    }
}

/// One keep-alive connection of a load: sends a request, reads its answer, tells the load.
private final class LoadConnection: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    private let load: Load
    private var context: ChannelHandlerContext?
    private(set) var inFlightSince: NIODeadline?
    private var status = HTTPResponseStatus.ok
    /// The start of a refusal's body, for the report.
    private var refusal = ""
    private var closing = false

    init(load: Load) {
        self.load = load
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func send(_ request: LoadRequest, start: NIODeadline) {
        guard let context else { return }
        inFlightSince = start
        let head = HTTPRequestHead(version: .http1_1, method: request.method, uri: request.target, headers: request.headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if let body = request.body { context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil) }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            status = head.status
            refusal = ""
        case .body(let body):
            if !(200..<300).contains(status.code), refusal.count < 300 { refusal += String(buffer: body) }
        case .end:
            guard let start = inFlightSince else { return }
            inFlightSince = nil
            let failure = (200..<300).contains(status.code) ? nil : "HTTP \(status.code): \(refusal.prefix(300))"
            load.answered(on: self, start: start, failure: failure)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        let start = inFlightSince
        inFlightSince = nil
        self.context = nil
        guard !closing || start != nil else { return }
        load.lost(self, inFlightSince: start, error: start.map { "no answer after \(Double((NIODeadline.now() - $0).nanoseconds) / 1e9) s or connection closed" } ?? "connection closed")
    }

    /// Closes the connection; a request still in flight counts as failed.
    func close() {
        closing = true
        context?.close(promise: nil)
    }
}
