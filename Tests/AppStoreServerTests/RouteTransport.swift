import AppStoreServer
import Foundation
import HummingbirdTesting
import Testing

/// How a route test reaches the server: in-process through the router, over plain HTTP on loopback, or over the
/// HTTPS listener (TLS with a certificate from a fresh ``TLSAuthority``). Tests that take every transport show that
/// the HTTPS listener serves the same routes as the plain one.
enum RouteTransport: CaseIterable, Sendable, CustomTestStringConvertible {
    case router, http, https

    var testDescription: String {
        switch self {
        case .router: "in-process"
        case .http: "HTTP"
        case .https: "HTTPS"
        }
    }

    /// A certificate for the loopback names, from a root made once for the test run.
    static let identity: TLSServerIdentity = {
        let now = Date()
        let authority = try! TLSAuthority(now: now)
        return try! authority.issueServerIdentity(hosts: AppleHosts.all + AppleHosts.loopback, now: now)
    }()

    /// Runs `body` with a client of `server` over this transport.
    func test<Value: Sendable>(_ server: StoreServer, _ body: @Sendable (any TestClientProtocol) async throws -> Value) async throws -> Value {
        switch self {
        case .router:
            return try await server.makeApplication().test(.router, body)
        case .http:
            return try await server.makeApplication().test(.live, body)
        case .https:
            var server = server
            server.https = HTTPSListener(port: 0, identity: Self.identity)
            return try await server.makeApplication(listener: .https).test(.ahc(.https), body)
        }
    }
}
