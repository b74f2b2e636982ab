import AppStoreEngine
import HTTPTypes

extension StoreError {
    /// The HTTP status every surface of the emulator answers this error with: the control API, the device protocol,
    /// the transaction manager's page and the key routes. (Apple's own surfaces — the App Store Server API and
    /// `verifyReceipt` — answer with Apple's error codes instead.)
    ///
    /// | status | errors |
    /// |---|---|
    /// | 404 | an unknown product, transaction or notification |
    /// | 409 | a key or name that is already taken |
    /// | 422 | an `Idempotency-Key` reused for another request |
    /// | 500 | the store's storage or signing failed (nothing was changed) |
    /// | 503 | the store could not be reached |
    /// | 400 | every other refusal: the request asks for what the store does not allow, and the message says what to send |
    var httpStatus: HTTPResponse.Status {
        switch self {
        case .unknownProduct, .unknownTransaction, .unknownNotification: .notFound
        case .apiKeyExists: .conflict
        case .idempotencyKeyReused: .unprocessableContent
        case .storageFailure, .signingFailure: .internalServerError
        case .storeUnreachable: .serviceUnavailable
        default: .badRequest
        }
    }
}

extension TenantError {
    /// The HTTP status the control API answers this refusal with: 400 for a name that is not one or the server's own
    /// store, 404 for a tenant that does not exist, 409 for a name that is taken, and for a store that failed, its
    /// error's status (``StoreError/httpStatus``).
    var httpStatus: HTTPResponse.Status {
        switch code {
        case .invalidName, .serverTenant: .badRequest
        case .unknown: .notFound
        case .alreadyExists: .conflict
        case .storeFailure(let error): error.httpStatus
        }
    }
}
