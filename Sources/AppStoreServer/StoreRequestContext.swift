import AppStoreFormats
import Foundation
import JSONCoding
public import Hummingbird

/// The context every route of the store is handed: Hummingbird's own, plus what a step before the route already read
/// from the request, so the route does not read it again.
public struct StoreRequestContext: RequestContext {
    /// Hummingbird's part: allocator, logger, request identifier, parameters.
    public var coreContext: CoreRequestContextStorage

    /// A `verifyReceipt` body the front door (``AppleHostResponder``) decoded, with its receipt read, to find the store
    /// that issued it; `nil` when the route has to read the body itself.
    var verifyReceiptBody: VerifyReceiptBody?

    /// Reads JSON request bodies for `Request.decode(as:context:)`: the package's fast reader.
    public var requestDecoder: StoreRequestDecoder { StoreRequestDecoder() }

    /// Creates the context of a request from the channel it arrived on.
    public init(source: Source) {
        coreContext = .init(source: source)
    }
}

/// A `verifyReceipt` request body, decoded, and the receipt it carries read but not verified.
struct VerifyReceiptBody: Sendable {
    /// The decoded body; `nil` when the body is not a `verifyReceipt` request (Apple answers 21000).
    var request: VerifyReceiptRequest?
    /// The receipt in ``request``, read; `nil` when there is none or it does not read (the route answers as Apple does).
    var receipt: UnverifiedReceipt?

    /// Decodes `body`: the request, then its receipt.
    init(_ body: Data) {
        self.init(try? JSONReader().decode(VerifyReceiptRequest.self, from: body))
    }

    /// Reads the receipt of a decoded request.
    init(_ request: VerifyReceiptRequest?) {
        self.request = request
        receipt = request?.receiptData.flatMap { text in try? UnverifiedReceipt(receiptData: Data(text.utf8)) }
    }
}
