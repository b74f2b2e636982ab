import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import NIOCore
import NIOSSL
public import ServiceLifecycle
import UnixSignals
import Synchronization

/// An HTTPS listener: where it listens and the certificate it presents.
public struct HTTPSListener: Sendable {
    /// The address to listen on; loopback unless the user says otherwise.
    public var host: String
    /// The port to listen on: 443 for Apple's exact URLs, 0 for a free one.
    public var port: Int
    /// The server certificate and key, from the store's ``TLSAuthority``.
    public var identity: TLSServerIdentity

    /// Describes a listener.
    public init(host: String = "127.0.0.1", port: Int, identity: TLSServerIdentity) {
        self.host = host
        self.port = port
        self.identity = identity
    }
}

/// One of a server's listeners.
public enum StoreListener: String, Sendable, CustomStringConvertible {
    /// Plain HTTP, ``StoreServer/host`` and ``StoreServer/port``.
    case http
    /// HTTPS, ``StoreServer/https``.
    case https

    /// `http` or `https`, the URL scheme.
    public var description: String { rawValue }
}

/// A listener that could not start: which, and what to do about it.
public struct ListenerFailure: Error, Sendable, CustomStringConvertible {
    /// The listener that failed.
    public let listener: StoreListener
    /// What happened and what to do.
    public let message: String

    /// The message.
    public var description: String { message }

    init(_ listener: StoreListener, message: String) {
        self.listener = listener
        self.message = message
    }

    /// Explains `error`, thrown while `listener` bound `host`:`port`, in terms a user can act on.
    init(_ listener: StoreListener, host: String, port: Int, error: any Error) {
        self.listener = listener
        let option = listener == .http ? "--port" : "--https-port"
        switch (error as? IOError)?.errnoCode {
        case EADDRINUSE:
            message = "\(listener) port \(port) on \(host) is in use by another program (another storekit serve?). Stop it, or give \(option) another port (0 picks a free one)."
        case EACCES where port < 1024:
            message = "\(listener) port \(port) needs privileges this process lacks. Run storekit as root, let it bind low ports (sudo setcap cap_net_bind_service=+ep \"$(command -v storekit)\"), or give \(option) 8443 and send 443 there (see \"HTTPS at Apple's addresses\" in the README)."
        case EADDRNOTAVAIL:
            message = "\(listener) address \(host) is not an address of this machine. Give 127.0.0.1, or an address `ip addr` lists."
        default:
            message = "\(listener) listener on \(host):\(port) did not start: \(error)."
        }
    }
}

extension StoreServer {
    /// Runs the server until SIGINT or SIGTERM — every listener (plain HTTP, and ``https`` when set) over one set of
    /// routes, and the stores' work between requests (``StoreService``) — then shuts down in order: the listeners stop
    /// accepting connections and answer the requests in flight, then each notification sender finishes and saves the
    /// attempt under way, and this returns.
    ///
    /// A listener that cannot start is reported to `onListenerFailure` while the others keep serving; only when none
    /// starts does this throw. To run the server in a `ServiceGroup` of your own, use
    /// ``services(onListening:onListenerFailure:)``.
    ///
    /// - Parameters:
    ///   - onListening: called with each listener and its bound port once it accepts connections.
    ///   - onListenerFailure: called with why a listener could not start.
    /// - Throws: the first ``ListenerFailure`` when no listener started.
    public func run(
        onListening: @escaping @Sendable (StoreListener, Int) async -> Void = { _, _ in },
        onListenerFailure: @escaping @Sendable (ListenerFailure) -> Void = { _ in }
    ) async throws {
        let services = try await services(onListening: onListening, onListenerFailure: onListenerFailure)
        try await ServiceGroup(configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)).run()
    }

    /// What running the server is, as services for a `ServiceGroup`, in the order the group must hold them: the
    /// stores' work (a ``StoreService`` that the server's own store and every tenant joins as it opens), then each
    /// listener. A group shuts its services down last to first, so on a graceful shutdown the listeners stop accepting
    /// and answer the requests in flight before the notification senders stop.
    ///
    /// A listener that cannot start is reported to `onListenerFailure` and waits for the shutdown while the others
    /// serve; the last one to fail ends the group with its ``ListenerFailure``.
    ///
    /// - Parameters:
    ///   - onListening: called with each listener and its bound port once it accepts connections.
    ///   - onListenerFailure: called with why a listener could not start.
    /// - Throws: ``ListenerFailure`` when ``https`` is set and its certificate does not load.
    public func services(
        onListening: @escaping @Sendable (StoreListener, Int) async -> Void = { _, _ in },
        onListenerFailure: @escaping @Sendable (ListenerFailure) -> Void = { _ in }
    ) async throws -> [any Service] {
        let work = StoreService(metrics: metrics)
        await work.adopt(TenantDirectory.Tenant(engine: engine, notificationSender: notificationSender))
        await tenants?.runWork(in: work)
        let responder = makeResponder()
        var listeners: [(StoreListener, String, Int)] = [(.http, host, port)]
        if let https { listeners.append((.https, https.host, https.port)) }
        let failures = ListenerFailures(expected: listeners.count)
        let running = try listeners.map { listener, host, port in
            let service = try application(listener, responder: responder, onListening: onListening)
            return TolerantListener(service: service, opensAfter: work) { error in
                let failure = ListenerFailure(listener, host: host, port: port, error: error)
                onListenerFailure(failure)
                return failures.record(failure)
            }
        }
        return [work] + running
    }
}

extension StoreServer {
    /// The application of `listener`, serving `responder`: plain HTTP, or TLS with ``https``'s certificate.
    func application<Responder: HTTPResponder<StoreRequestContext>>(
        _ listener: StoreListener, responder: Responder, onListening: @escaping @Sendable (StoreListener, Int) async -> Void
    ) throws(ListenerFailure) -> Application<Responder> {
        guard listener == .https else { return plainApplication(responder: responder, onListening: onListening) }
        guard let https else {
            throw ListenerFailure(.https, message: "No HTTPS listener is configured: set the server's https (storekit serve --https-port).")
        }
        let server: HTTPServerBuilder
        do {
            let tls = TLSConfiguration.makeServerConfiguration(
                certificateChain: [.certificate(try NIOSSLCertificate(bytes: try https.identity.certificateDER, format: .der))],
                privateKey: .privateKey(try NIOSSLPrivateKey(bytes: https.identity.privateKeyDER, format: .der))
            )
            server = try .tls(.http1(), tlsConfiguration: tls)
        } catch {
            throw ListenerFailure(.https, message: "The HTTPS certificate does not load (\(error)). Delete <data-dir>/tls/\(TLSAuthority.FileName.server) to issue a new one.")
        }
        return Application(
            responder: responder, server: server,
            configuration: ApplicationConfiguration(address: .hostname(https.host, port: https.port), serverName: "OpenStoreKit"),
            onServerRunning: { channel in await onListening(.https, channel.localAddress?.port ?? 0) },
            logger: logger
        )
    }

    /// The plain HTTP application, serving `responder` at ``host`` and ``port``.
    func plainApplication<Responder: HTTPResponder<StoreRequestContext>>(
        responder: Responder, onListening: @escaping @Sendable (StoreListener, Int) async -> Void
    ) -> Application<Responder> {
        Application(
            responder: responder,
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "OpenStoreKit"),
            onServerRunning: { channel in await onListening(.http, channel.localAddress?.port ?? 0) },
            logger: logger
        )
    }
}

/// Counts the listeners that failed to start, so the last one's failure ends the server.
private final class ListenerFailures: Sendable {
    private let state: Mutex<(failed: Int, first: ListenerFailure?)> = Mutex((0, nil))
    private let expected: Int

    init(expected: Int) { self.expected = expected }

    /// Records `failure`; returns the first failure once every listener has failed, else `nil`.
    func record(_ failure: ListenerFailure) -> ListenerFailure? {
        state.withLock { state in
            state.failed += 1
            if state.first == nil { state.first = failure }
            return state.failed == expected ? state.first : nil
        }
    }
}

/// A listener whose failure to start leaves the other listeners serving: it reports the failure and waits for the
/// server's shutdown instead of ending the service group, unless it was the last one standing.
private struct TolerantListener: Service {
    let service: any Service
    /// The stores' work, which runs before the listener accepts connections.
    let opensAfter: StoreService
    /// Reports a failure; returns the error to end the server with, when no listener is left.
    let failed: @Sendable (any Error) -> (any Error)?

    func run() async throws {
        await opensAfter.waitUntilRunning()
        do {
            try await service.run()
        } catch {
            if let fatal = failed(error) { throw fatal }
            try? await gracefulShutdown()
        }
    }
}
