public import Foundation

/// A request to the App Store to buy a product: what to buy, how many, and for which of the app's users.
///
/// Create one with `SKPayment(product:)` from a product an ``SKProductsRequest`` returned and add it to the
/// payment queue. The queue copies the payment: adding the same payment twice buys twice. Use
/// ``SKMutablePayment`` to set a quantity or the other options.
open class SKPayment: NSObject, NSCopying, NSMutableCopying {
    /// The values of a payment, shared by the immutable and the mutable class.
    struct Details: Sendable, Equatable {
        var productIdentifier = ""
        var requestData: Data?
        var quantity = 1
        var applicationUsername: String?
        var simulatesAskToBuyInSandbox = false
        var paymentDiscount: SKPaymentDiscount.Details?
    }

    var details: Details

    /// An empty payment; set its fields through ``SKMutablePayment``.
    public override init() {
        details = Details()
        super.init()
    }

    init(details: Details) {
        self.details = details
        super.init()
    }

    /// A payment for one unit of `product`.
    public convenience init(product: SKProduct) {
        self.init(details: Details(productIdentifier: product.productIdentifier))
    }

    /// The identifier of the product to buy.
    open var productIdentifier: String { details.productIdentifier }

    /// Data the app attaches to the payment. Apps may not set it: the purchase fails with
    /// `SKError.unauthorizedRequestData`.
    open var requestData: Data? { details.requestData }

    /// How many units to buy (1 to 10; only consumables may be bought several at a time).
    open var quantity: Int { details.quantity }

    /// An opaque identifier of the app's user; a UUID string also becomes the transaction's `appAccountToken`.
    open var applicationUsername: String? { details.applicationUsername }

    /// Whether the purchase behaves as if Ask to Buy were on for the account, so the transaction is deferred.
    open var simulatesAskToBuyInSandbox: Bool { details.simulatesAskToBuyInSandbox }

    /// The promotional offer to apply to a subscription purchase.
    open var paymentDiscount: SKPaymentDiscount? { details.paymentDiscount.map(SKPaymentDiscount.init(details:)) }

    /// An immutable ``SKPayment`` with the same values.
    open func copy(with zone: NSZone? = nil) -> Any {
        SKPayment(details: details)
    }

    /// An ``SKMutablePayment`` with the same values.
    open func mutableCopy(with zone: NSZone? = nil) -> Any {
        SKMutablePayment(details: details)
    }

    /// The product identifier and quantity.
    open override var description: String {
        "<\(type(of: self)) \(productIdentifier) ×\(quantity)>"
    }
}

/// A payment whose fields can be changed before it is added to the queue.
open class SKMutablePayment: SKPayment {
    /// The identifier of the product to buy.
    open override var productIdentifier: String {
        get { details.productIdentifier }
        set { details.productIdentifier = newValue }
    }

    /// Data the app attaches to the payment; apps may not set it (see ``SKPayment/requestData``).
    open override var requestData: Data? {
        get { details.requestData }
        set { details.requestData = newValue }
    }

    /// How many units to buy (1 to 10).
    open override var quantity: Int {
        get { details.quantity }
        set { details.quantity = newValue }
    }

    /// An opaque identifier of the app's user.
    open override var applicationUsername: String? {
        get { details.applicationUsername }
        set { details.applicationUsername = newValue }
    }

    /// Whether the purchase behaves as if Ask to Buy were on.
    open override var simulatesAskToBuyInSandbox: Bool {
        get { details.simulatesAskToBuyInSandbox }
        set { details.simulatesAskToBuyInSandbox = newValue }
    }

    /// The promotional offer to apply to a subscription purchase.
    open override var paymentDiscount: SKPaymentDiscount? {
        get { details.paymentDiscount.map(SKPaymentDiscount.init(details:)) }
        set { details.paymentDiscount = newValue?.details }
    }
}

/// A signed promotional offer, attached to a payment for an auto-renewable subscription.
///
/// `@unchecked Sendable`: every stored property is a `let` of a `Sendable` type.
open class SKPaymentDiscount: NSObject, @unchecked Sendable {
    struct Details: Sendable, Equatable {
        var identifier: String
        var keyIdentifier: String
        var nonce: UUID
        var signature: String
        var timestamp: Int64
    }

    let details: Details

    /// Creates a discount from the values your server signed.
    ///
    /// - Parameters:
    ///   - identifier: The promotional offer's identifier.
    ///   - keyIdentifier: The identifier of the subscription key that signed the offer.
    ///   - nonce: The one-time UUID that was signed (in lowercase).
    ///   - signature: The Base64 signature.
    ///   - timestamp: When the signature was made, in milliseconds since 1970.
    public init(identifier: String, keyIdentifier: String, nonce: UUID, signature: String, timestamp: NSNumber) {
        details = Details(
            identifier: identifier, keyIdentifier: keyIdentifier, nonce: nonce, signature: signature,
            timestamp: timestamp.int64Value
        )
        super.init()
    }

    init(details: Details) {
        self.details = details
        super.init()
    }

    /// The promotional offer's identifier.
    open var identifier: String { details.identifier }
    /// The identifier of the key that signed the offer.
    open var keyIdentifier: String { details.keyIdentifier }
    /// The one-time value that was signed.
    open var nonce: UUID { details.nonce }
    /// The Base64 signature.
    open var signature: String { details.signature }
    /// When the signature was made, in milliseconds since 1970.
    open var timestamp: NSNumber { NSNumber(value: details.timestamp) }
}

/// An App Store storefront: the country whose store the customer buys in.
///
/// `@unchecked Sendable`: every stored property is a `let` of a `Sendable` type.
open class SKStorefront: NSObject, @unchecked Sendable {
    private let code: String
    private let storefrontID: String

    /// A storefront with an empty code and identifier, as StoreKit's `init()` makes; test doubles override the
    /// properties.
    public override init() {
        code = ""
        storefrontID = ""
        super.init()
    }

    init(countryCode: String, identifier: String) {
        code = countryCode
        storefrontID = identifier
        super.init()
    }

    /// The three-letter ISO 3166-1 code of the storefront's country, e.g. `USA`.
    open var countryCode: String { code }

    /// Apple's identifier of the storefront, e.g. `143441`.
    open var identifier: String { storefrontID }

    /// Storefronts are equal when their identifiers are.
    open override func isEqual(_ object: Any?) -> Bool {
        (object as? SKStorefront)?.identifier == identifier
    }

    /// Hashes the identifier.
    open override var hash: Int { identifier.hashValue }

    /// The country code and identifier.
    open override var description: String { "<SKStorefront \(countryCode) \(identifier)>" }
}
