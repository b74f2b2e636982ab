import HTTPTypes
import Hummingbird

extension HTTPField.Name {
    /// `Idempotency-Key`: the key a client chose for a purchase request, so that retrying the request never buys
    /// twice (see `PurchaseRequest.idempotencyKey`).
    static let idempotencyKey = HTTPField.Name("Idempotency-Key")!
}

extension Request {
    /// The request's `Idempotency-Key` header, when it has a non-empty one.
    var idempotencyKey: String? {
        guard let key = headers[.idempotencyKey], !key.isEmpty else { return nil }
        return key
    }
}
