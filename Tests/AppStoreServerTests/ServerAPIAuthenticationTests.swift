import AppStoreEngine
import AppStoreFormats
import AppStoreServer
import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import StoreKitConfiguration
import Testing

/// App Store Server API bearer tokens: what is accepted and everything Apple refuses with 401.
@Suite("App Store Server API authentication")
struct ServerAPIAuthenticationTests {
    static let issuer = "issuer-1"
    let privateKey = P256.Signing.PrivateKey()
    var key: ServerAPIKey { ServerAPIKey(keyID: "ABCDEF1234", issuerID: Self.issuer, publicKey: privateKey.publicKey, created: Date()) }

    /// Base64url without padding, as JWTs write their parts.
    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// A compact JWS over the header and claims, signed with `signer` (raw r‖s, as ES256 requires).
    func token(header: [String: Any] = ["alg": "ES256", "kid": "ABCDEF1234", "typ": "JWT"], claims: [String: Any], signer: P256.Signing.PrivateKey? = nil) throws -> String {
        try Self.token(header: header, claims: claims, signer: signer ?? privateKey)
    }

    static func token(header: [String: Any], claims: [String: Any], signer: P256.Signing.PrivateKey) throws -> String {
        func encode(_ object: [String: Any]) throws -> String {
            base64URL(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
        }
        let input = try encode(header) + "." + encode(claims)
        let signature = try signer.signature(for: Data(input.utf8)).rawRepresentation
        return input + "." + base64URL(signature)
    }

    func claims(_ changes: [String: Any?] = [:]) -> [String: Any] {
        Self.claims(changes)
    }

    static func claims(_ changes: [String: Any?] = [:]) -> [String: Any] {
        let now = Date().timeIntervalSince1970
        var claims: [String: Any] = ["iss": Self.issuer, "aud": "appstoreconnect-v1", "bid": "com.example.demo", "iat": Int(now), "exp": Int(now) + 1_200]
        for (name, value) in changes { claims[name] = value }
        return claims
    }

    /// The status a server with `keys` answers a transaction-info request carrying `authorization`.
    func status(_ authorization: String?, keys: [ServerAPIKey], transport: RouteTransport = .router) async throws -> HTTPResponse.Status {
        let engine = StoreEngine(catalog: Catalog(products: []), storage: InMemoryStorage(), clock: VirtualClock(start: Date()), signer: .ephemeral)
        return try await transport.test(StoreServer(engine: engine, port: 0, apiKeys: ServerAPIKeyRing(keys: keys))) { client in
            var headers = HTTPFields()
            if let authorization { headers[.authorization] = authorization }
            return try await client.execute(uri: "/inApps/v1/transactions/2000000000000001", method: .get, headers: headers) { response in
                response.status
            }
        }
    }

    @Test("A valid token reaches the endpoint: an unknown transaction is Apple's 404, not 401", arguments: RouteTransport.allCases)
    func validToken(transport: RouteTransport) async throws {
        #expect(try await status("Bearer " + token(claims: claims()), keys: [key], transport: transport) == .notFound)
        #expect(try await status("Bearer " + token(claims: claims(["aud": "elsewhere"])), keys: [key], transport: transport) == .unauthorized)
        #expect(try await status("Bearer " + token(claims: claims(["iat": nil])), keys: [key]) == .notFound, "Apple's libraries send no iat")
    }

    @Test(
        "Every token Apple refuses gets 401",
        arguments: ["no header", "not a JWT", "alg none", "unknown kid", "another key", "wrong issuer", "wrong audience", "expired", "over an hour", "no bid", "revoked"]
    )
    func refused(_ problem: String) async throws {
        var keys = [key]
        let authorization: String? = switch problem {
        case "no header": nil
        case "not a JWT": "Bearer abc"
        case "alg none": "Bearer " + (try token(header: ["alg": "none", "kid": "ABCDEF1234"], claims: claims()))
        case "unknown kid": "Bearer " + (try token(header: ["alg": "ES256", "kid": "ZZZZZZZZZZ"], claims: claims()))
        case "another key": "Bearer " + (try token(claims: claims(), signer: P256.Signing.PrivateKey()))
        case "wrong issuer": "Bearer " + (try token(claims: claims(["iss": "someone-else"])))
        case "wrong audience": "Bearer " + (try token(claims: claims(["aud": "appstoreconnect-v2"])))
        case "expired": "Bearer " + (try token(claims: claims(["exp": Int(Date().timeIntervalSince1970) - 10])))
        case "over an hour": "Bearer " + (try token(claims: claims(["exp": Int(Date().timeIntervalSince1970) + 7_200])))
        case "no bid": "Bearer " + (try token(claims: claims(["bid": nil])))
        default: "Bearer " + (try token(claims: claims()))
        }
        if problem == "revoked" { keys[0].revoked = true }
        #expect(try await status(authorization, keys: keys) == .unauthorized)
    }

    @Test("Keys made through /control/keys sign tokens at once, a revoked one is refused at once, and a key another handle on the storage stores is accepted at once")
    func keysFromControlAPI() async throws {
        let storage = InMemoryStorage()
        let ring = ServerAPIKeyRing(storage: storage)
        let engine = StoreEngine(catalog: Catalog(products: []), storage: storage, clock: VirtualClock(start: Date()), signer: .ephemeral)
        try await StoreServer(engine: engine, port: 0, apiKeys: ring).makeApplication().test(.router) { client in
            func call(_ method: HTTPRequest.Method, _ uri: String, body: String? = nil, authorization: String? = nil) async throws -> (HTTPResponse.Status, [String: Any]) {
                var headers = HTTPFields()
                if let authorization { headers[.authorization] = authorization }
                return try await client.execute(uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) }) { response in
                    (response.status, (try? JSONSerialization.jsonObject(with: Data(response.body.readableBytesView))) as? [String: Any] ?? [:])
                }
            }
            let (created, made) = try await call(.post, "/control/keys", body: #"{"issuer": "issuer-9"}"#)
            #expect(created == .created)
            let keyID = try #require(made["keyId"] as? String)
            let signer = try P256.Signing.PrivateKey(pemRepresentation: try #require(made["privateKey"] as? String))
            let bearer = "Bearer " + (try Self.token(header: ["alg": "ES256", "kid": keyID, "typ": "JWT"], claims: Self.claims(["iss": "issuer-9"]), signer: signer))
            #expect(try await call(.get, "/inApps/v1/transactions/2000000000000001", authorization: bearer).0 == .notFound)
            let (_, listed) = try await call(.get, "/control/keys")
            #expect((listed["keys"] as? [[String: Any]])?.compactMap { $0["privateKey"] }.isEmpty == true, "the private half is handed out once")

            #expect(try await call(.post, "/control/keys/\(keyID)/revoke").0 == .ok)
            #expect(try await call(.get, "/inApps/v1/transactions/2000000000000001", authorization: bearer).0 == .unauthorized)
            #expect(try await call(.post, "/control/keys/NOSUCHKEY0/revoke").0 == .notFound)

            // `storekit keys create`, or another server, stores a key; the running server takes it.
            let other = ServerAPIKeyRing(storage: storage)
            let (cliKey, cliPrivate) = try await other.create(issuerID: "issuer-cli", created: Date().addingTimeInterval(1))
            let cliBearer = "Bearer " + (try Self.token(
                header: ["alg": "ES256", "kid": cliKey.keyID, "typ": "JWT"], claims: Self.claims(["iss": "issuer-cli"]),
                signer: try P256.Signing.PrivateKey(pemRepresentation: cliPrivate)
            ))
            #expect(try await call(.get, "/inApps/v1/transactions/2000000000000001", authorization: cliBearer).0 == .notFound)
        }
        #expect(try await ServerAPIKeyRing(storage: storage).keys().count == 2)
    }

    @Test("Key files of earlier versions move into storage once: the server's and each tenant's keep signing, revoked ones stay revoked, and the files are renamed .imported")
    func keyFilesAreImported() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("openstorekit-keys-\(UUID().uuidString)")
        let tenants = directory.appendingPathComponent("tenants")
        try FileManager.default.createDirectory(at: tenants, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let created = Date(timeIntervalSince1970: 1_768_478_400)
        let serverKey = ServerAPIKey(keyID: "SERVERKEY1", issuerID: Self.issuer, publicKey: privateKey.publicKey, created: created)
        var revokedKey = ServerAPIKey(keyID: "REVOKEDKY1", issuerID: Self.issuer, publicKey: P256.Signing.PrivateKey().publicKey, created: created)
        revokedKey.revoked = true
        let tenantKey = ServerAPIKey(keyID: "TENANTKEY1", issuerID: "issuer-t", publicKey: P256.Signing.PrivateKey().publicKey, created: created)
        // As the file ring of earlier versions wrote them.
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let serverFile = directory.appendingPathComponent("api-keys.json"), tenantFile = tenants.appendingPathComponent("alpha.api-keys.json")
        try encoder.encode([serverKey, revokedKey]).write(to: serverFile)
        try encoder.encode([tenantKey]).write(to: tenantFile)

        let storage = InMemoryStorage()
        try await ServerAPIKeyRing.importKeyFiles(serverFile: serverFile, tenantFolder: tenants, into: storage)
        #expect(try await ServerAPIKeyRing(storage: storage).keys() == [revokedKey, serverKey])
        #expect(try await ServerAPIKeyRing(storage: storage, tenant: "alpha").keys() == [tenantKey])
        #expect(!FileManager.default.fileExists(atPath: serverFile.path) && !FileManager.default.fileExists(atPath: tenantFile.path))
        #expect(FileManager.default.fileExists(atPath: serverFile.path + ".imported"))
        #expect(FileManager.default.fileExists(atPath: tenantFile.path + ".imported"))
        let engine = StoreEngine(catalog: Catalog(products: []), storage: storage, clock: VirtualClock(start: Date()), signer: .ephemeral)
        let bearer = "Bearer " + (try token(header: ["alg": "ES256", "kid": "SERVERKEY1", "typ": "JWT"], claims: claims()))
        let status = try await StoreServer(engine: engine, port: 0, apiKeys: ServerAPIKeyRing(storage: storage)).makeApplication().test(.router) { client in
            var headers = HTTPFields()
            headers[.authorization] = bearer
            return try await client.execute(uri: "/inApps/v1/transactions/2000000000000001", method: .get, headers: headers) { $0.status }
        }
        #expect(status == .notFound, "the imported key signs Server API requests")

        // Importing again — a file put back, a second server on the same directory — changes nothing: a key revoked
        // since stays revoked.
        try await ServerAPIKeyRing(storage: storage).revoke("SERVERKEY1")
        try FileManager.default.copyItem(atPath: serverFile.path + ".imported", toPath: serverFile.path)
        try await ServerAPIKeyRing.importKeyFiles(serverFile: serverFile, tenantFolder: tenants, into: storage)
        #expect(try await ServerAPIKeyRing(storage: storage).keys().map(\.revoked) == [true, true])
    }

    /// A server whose own store (`default`) and tenants share one storage, as `storekit serve`'s do, each tenant
    /// selling `catalog(name)`.
    static func serverWithTenants(catalog: @escaping @Sendable (String) -> Catalog = { _ in Catalog(products: []) }) -> StoreServer {
        let start = Date()
        let storage = InMemoryStorage()
        let main = StoreEngine(tenantID: "default", catalog: catalog("default"), storage: storage, clock: VirtualClock(start: start), signer: .ephemeral)
        var server = StoreServer(engine: main, port: 0, apiKeys: ServerAPIKeyRing(storage: storage))
        server.tenants = TenantDirectory(serverTenant: "default") { name, _ in
            if name == "default" { return TenantDirectory.Tenant(engine: main) }
            return TenantDirectory.Tenant(engine: StoreEngine(tenantID: name, catalog: catalog(name), storage: storage, clock: VirtualClock(start: start), signer: .ephemeral))
        }
        return server
    }

    @Test("A tenant's own key signs for that tenant only (at Apple's bare paths it picks that tenant); the server's keys sign for every tenant")
    func tenantKeys() async throws {
        let server = Self.serverWithTenants()
        try await server.makeApplication().test(.router) { client in
            func makeKey(_ path: String) async throws -> String {
                let made = try await client.execute(uri: path, method: .post, body: ByteBuffer(string: #"{"issuer": "issuer-t"}"#)) { response in
                    #expect(response.status == .created)
                    return try #require(try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any])
                }
                let signer = try P256.Signing.PrivateKey(pemRepresentation: try #require(made["privateKey"] as? String))
                let keyID = try #require(made["keyId"] as? String)
                return "Bearer " + (try Self.token(header: ["alg": "ES256", "kid": keyID, "typ": "JWT"], claims: Self.claims(["iss": "issuer-t"]), signer: signer))
            }
            func status(_ prefix: String, _ bearer: String) async throws -> HTTPResponse.Status {
                var headers = HTTPFields()
                headers[.authorization] = bearer
                return try await client.execute(uri: "\(prefix)/inApps/v1/transactions/2000000000000001", method: .get, headers: headers) { $0.status }
            }
            let alphas = try await makeKey("/t/alpha/control/keys")
            #expect(try await status("/t/alpha", alphas) == .notFound)
            #expect(try await status("/t/beta", alphas) == .unauthorized)
            #expect(try await status("", alphas) == .notFound, "at Apple's path, alpha's key reaches alpha")
            let servers = try await makeKey("/control/keys")
            #expect(try await status("/t/alpha", servers) == .notFound)
            #expect(try await status("/t/beta", servers) == .notFound)
            #expect(try await status("", servers) == .notFound)
        }
    }

    @Test("At Apple's bare paths each tenant's key reaches its own tenant: the same transaction ID is each tenant's own purchase; an unknown key is refused, a server-wide key is the server's own store", arguments: RouteTransport.allCases)
    func bareRequestsReachTheKeysTenant(transport: RouteTransport) async throws {
        let server = Self.serverWithTenants { name in
            Catalog(products: [CatalogProduct(id: "\(name).premium", type: .nonConsumable, price: Decimal(string: "4.99")!)])
        }
        try await transport.test(server) { client in
            func call(_ method: HTTPRequest.Method, _ uri: String, body: String? = nil, authorization: String? = nil) async throws -> (HTTPResponse.Status, [String: Any]) {
                var headers: HTTPFields = [.contentType: "application/json"]
                if let authorization { headers[.authorization] = authorization }
                return try await client.execute(uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) }) { response in
                    (response.status, (try? JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any]) ?? [:])
                }
            }
            func bearer(madeAt path: String) async throws -> String {
                let (status, made) = try await call(.post, path, body: #"{"issuer": "issuer-t"}"#)
                #expect(status == .created)
                let signer = try P256.Signing.PrivateKey(pemRepresentation: try #require(made["privateKey"] as? String))
                let keyID = try #require(made["keyId"] as? String)
                return "Bearer " + (try Self.token(header: ["alg": "ES256", "kid": keyID, "typ": "JWT"], claims: Self.claims(["iss": "issuer-t"]), signer: signer))
            }
            /// The product of transaction 2000000000000001 as the App Store Server API shows it to `authorization`.
            func productOfFirstTransaction(_ authorization: String) async throws -> String? {
                let (status, info) = try await call(.get, "/inApps/v1/transactions/2000000000000001", authorization: authorization)
                guard status == .ok, let signed = info["signedTransactionInfo"] as? String else { return "HTTP \(status.code)" }
                let payload = try JSONSerialization.jsonObject(with: try CompactJWS(signed).payload) as? [String: Any]
                return payload?["productId"] as? String
            }
            for name in ["alpha", "beta", "default"] {
                #expect(try await call(.post, "/t/\(name)/control/purchases", body: #"{"productId": "\#(name).premium", "bundleId": "com.example.demo"}"#).0 == .ok)
            }
            let alpha = try await bearer(madeAt: "/t/alpha/control/keys")
            let beta = try await bearer(madeAt: "/t/beta/control/keys")
            let serverWide = try await bearer(madeAt: "/control/keys")
            #expect(try await productOfFirstTransaction(alpha) == "alpha.premium")
            #expect(try await productOfFirstTransaction(beta) == "beta.premium")
            #expect(try await productOfFirstTransaction(serverWide) == "default.premium")
            let stranger = "Bearer " + (try Self.token(header: ["alg": "ES256", "kid": "UNKNOWN123", "typ": "JWT"], claims: Self.claims(["iss": "issuer-t"]), signer: P256.Signing.PrivateKey()))
            #expect(try await productOfFirstTransaction(stranger) == "HTTP 401")
            // A token naming alpha's key but signed by another key is checked in alpha's routes, and refused there.
            let forged = "Bearer " + (try Self.token(header: ["alg": "ES256", "kid": try #require(CompactJWS(String(alpha.dropFirst(7))).keyID), "typ": "JWT"], claims: Self.claims(["iss": "issuer-t"]), signer: P256.Signing.PrivateKey()))
            #expect(try await productOfFirstTransaction(forged) == "HTTP 401")
        }
    }
}
