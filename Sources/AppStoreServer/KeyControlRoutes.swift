import AppStoreEngine
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The body of `POST /control/keys`.
struct CreateKeyRequest: Decodable {
    /// The issuer the key belongs to, the tokens' `iss`.
    var issuer: String
}

/// A key as `/control/keys` shows it; `privateKey` only in the answer that created it.
struct KeyResponse: Encodable {
    var keyId: String
    var issuerId: String
    var created: String
    var revoked: Bool
    /// The private half, a `.p8` file's PEM: handed out once, never kept by the store.
    var privateKey: String?

    init(_ key: ServerAPIKey, privateKey: String? = nil) {
        keyId = key.keyID
        issuerId = key.issuerID
        created = key.created.formatted(.iso8601)
        revoked = key.revoked
        self.privateKey = privateKey
    }
}

/// The server-wide keys part of the control API: make, list and revoke the keys App Store Server API tokens are
/// signed with — what `storekit keys` does, for backend tests in any language.
struct KeyControlRoutes {
    let keys: ServerAPIKeyRing
    /// The time keys are dated with: wall time, as App Store Connect dates them.
    let wallClock: any StoreClock = SystemClock()

    func add(to router: Router<StoreRequestContext>) {
        router.on(.listKeys) { _, _ in
            do {
                return try json(["keys": try await keys.keys().map { KeyResponse($0) }], status: .ok)
            } catch let error as StoreError {
                return try json(["error": error.message], status: error.httpStatus)
            }
        }
        router.on(.createKey) { request, context in
            guard let body = try? await request.decode(as: CreateKeyRequest.self, context: context),
                  !body.issuer.trimmingCharacters(in: .whitespaces).isEmpty else {
                return try json(["error": #"Give {"issuer": "57246542-96fe-1a63-e053-0824d011072a"}: the issuer ID your backend puts in its tokens' iss."#], status: .badRequest)
            }
            do {
                let (key, privateKey) = try await keys.create(issuerID: body.issuer, created: wallClock.now())
                return try json(KeyResponse(key, privateKey: privateKey), status: .created)
            } catch let error as StoreError {
                return try json(["error": error.message], status: error.httpStatus)
            }
        }
        router.on(.revokeKey) { _, context in
            let keyID = context.parameters.get("keyId") ?? ""
            do {
                guard let key = try await keys.revoke(keyID) else {
                    return try json(["error": "No key \(keyID) on this server; GET /control/keys lists them."], status: .notFound)
                }
                return try json(KeyResponse(key), status: .ok)
            } catch let error as StoreError {
                return try json(["error": error.message], status: error.httpStatus)
            }
        }
    }

    private func json(_ value: some Encodable, status: HTTPResponse.Status) throws -> Response {
        try ControlResponse.json(value, status: status)
    }
}
