#if canImport(StoreKit)
import StoreKit
#else
import OpenStoreKit
#endif

// Test doubles made the way StoreKit wrappers' own suites make them: subclass StoreKit's classes and override the
// properties the code under test reads. StoreKit's objects have no public initializers that set their values, so
// this is the only way to build a product or a transaction without a store.
//
// `@unchecked Sendable` on the doubles with `var`s: each test builds its own and drives it from its own thread.

/// A transaction in whatever state a test sets; the state can change in place, as StoreKit updates a transaction.
final class TransactionDouble: SKPaymentTransaction, @unchecked Sendable {
    var state: SKPaymentTransactionState
    let stubPayment: SKPayment
    var stubError: (any Error)?
    var identifier: String?
    var date: Date?
    var stubOriginal: SKPaymentTransaction?

    init(
        _ state: SKPaymentTransactionState, productIdentifier: String, quantity: Int = 1, identifier: String? = nil,
        date: Date? = nil, error: (any Error)? = nil, original: SKPaymentTransaction? = nil
    ) {
        let payment = SKMutablePayment()
        payment.productIdentifier = productIdentifier
        payment.quantity = quantity
        self.state = state
        stubPayment = payment
        stubError = error
        self.identifier = identifier
        self.date = date
        stubOriginal = original
        super.init()
    }

    override var transactionState: SKPaymentTransactionState { state }
    override var payment: SKPayment { stubPayment }
    override var error: (any Error)? { stubError }
    override var transactionIdentifier: String? { identifier }
    override var transactionDate: Date? { date }
    override var original: SKPaymentTransaction? { stubOriginal }
}

/// A payment queue that records what the code under test asks of it and never talks to a store.
final class PaymentQueueDouble: SKPaymentQueue, @unchecked Sendable {
    private(set) var addedPayments: [SKPayment] = []
    private(set) var finishedTransactions: [SKPaymentTransaction] = []
    private(set) var observers: [any SKPaymentTransactionObserver] = []
    private(set) var removedObserverCount = 0
    /// One entry per restore, with the application username it was asked with.
    private(set) var restores: [String?] = []
    var pendingTransactions: [SKPaymentTransaction] = []

    override func add(_ payment: SKPayment) { addedPayments.append(payment) }
    override func add(_ observer: any SKPaymentTransactionObserver) { observers.append(observer) }
    override func remove(_ observer: any SKPaymentTransactionObserver) {
        observers.removeAll { $0 === observer }
        removedObserverCount += 1
    }
    override var transactionObservers: [any SKPaymentTransactionObserver] { observers }
    override var transactions: [SKPaymentTransaction] { pendingTransactions }
    override func finishTransaction(_ transaction: SKPaymentTransaction) {
        finishedTransactions.append(transaction)
        pendingTransactions.removeAll { $0 === transaction }
    }
    override func restoreCompletedTransactions() { restores.append(nil) }
    override func restoreCompletedTransactions(withApplicationUsername username: String?) { restores.append(username) }

    /// Whether the queue finished exactly this transaction object.
    func finished(_ transaction: SKPaymentTransaction) -> Bool {
        finishedTransactions.contains { $0 === transaction }
    }
}

/// A subscription period of any length.
final class PeriodDouble: SKProductSubscriptionPeriod, @unchecked Sendable {
    let units: Int
    let stubUnit: SKProduct.PeriodUnit

    init(_ units: Int, _ unit: SKProduct.PeriodUnit) {
        self.units = units
        stubUnit = unit
        super.init()
    }

    override var numberOfUnits: Int { units }
    override var unit: SKProduct.PeriodUnit { stubUnit }
}

/// An introductory or promotional offer.
final class DiscountDouble: SKProductDiscount, @unchecked Sendable {
    let stubPrice: NSDecimalNumber
    let locale: Locale
    let stubIdentifier: String?
    let period: SKProductSubscriptionPeriod
    let periods: Int
    let mode: SKProductDiscount.PaymentMode
    let kind: SKProductDiscount.`Type`

    init(
        price: String, locale: String = "en_US@currency=USD", identifier: String? = nil,
        period: SKProductSubscriptionPeriod, periods: Int, mode: SKProductDiscount.PaymentMode,
        type: SKProductDiscount.`Type` = .introductory
    ) {
        stubPrice = NSDecimalNumber(string: price)
        self.locale = Locale(identifier: locale)
        stubIdentifier = identifier
        self.period = period
        self.periods = periods
        self.mode = mode
        kind = type
        super.init()
    }

    override var price: NSDecimalNumber { stubPrice }
    override var priceLocale: Locale { locale }
    override var identifier: String? { stubIdentifier }
    override var subscriptionPeriod: SKProductSubscriptionPeriod { period }
    override var numberOfPeriods: Int { periods }
    override var paymentMode: SKProductDiscount.PaymentMode { mode }
    override var type: SKProductDiscount.`Type` { kind }
}

/// A product with the identifier, price and offers a test gives it.
final class ProductDouble: SKProduct, @unchecked Sendable {
    let identifier: String
    let title: String
    let stubPrice: NSDecimalNumber
    let locale: Locale
    let period: SKProductSubscriptionPeriod?
    let introductoryOffer: SKProductDiscount?
    let promotionalOffers: [SKProductDiscount]

    init(
        _ identifier: String, title: String = "", price: String = "0.99", locale: String = "en_US@currency=USD",
        period: SKProductSubscriptionPeriod? = nil, introductoryOffer: SKProductDiscount? = nil,
        promotionalOffers: [SKProductDiscount] = []
    ) {
        self.identifier = identifier
        self.title = title
        stubPrice = NSDecimalNumber(string: price)
        self.locale = Locale(identifier: locale)
        self.period = period
        self.introductoryOffer = introductoryOffer
        self.promotionalOffers = promotionalOffers
        super.init()
    }

    override var productIdentifier: String { identifier }
    override var localizedTitle: String { title }
    override var price: NSDecimalNumber { stubPrice }
    override var priceLocale: Locale { locale }
    override var subscriptionPeriod: SKProductSubscriptionPeriod? { period }
    override var introductoryPrice: SKProductDiscount? { introductoryOffer }
    override var discounts: [SKProductDiscount] { promotionalOffers }
}

/// The App Store's answer to a products request.
final class ProductsResponseDouble: SKProductsResponse, @unchecked Sendable {
    let stubProducts: [SKProduct]
    let invalid: [String]

    init(products: [SKProduct], invalidProductIdentifiers: [String] = []) {
        stubProducts = products
        invalid = invalidProductIdentifiers
        super.init()
    }

    override var products: [SKProduct] { stubProducts }
    override var invalidProductIdentifiers: [String] { invalid }
}

/// A products request that goes nowhere: the test answers it with `respond(_:)` or `fail(_:)`.
///
/// Apple's `SKProductsRequest` is not `Sendable`; OpenStoreKit's is `@unchecked Sendable`, so on Linux a subclass with
/// stored properties must restate the conformance (a warning otherwise). Restating it is harmless on Apple platforms.
final class ProductsRequestDouble: SKProductsRequest, @unchecked Sendable {
    let requestedIdentifiers: Set<String>
    private(set) var startCount = 0

    override init(productIdentifiers: Set<String>) {
        requestedIdentifiers = productIdentifiers
        super.init(productIdentifiers: productIdentifiers)
    }

    override func start() { startCount += 1 }

    /// Hands `response` to the delegate, then says the request finished, in StoreKit's order.
    func respond(_ response: SKProductsResponse) {
        delegate?.productsRequest(self, didReceive: response)
        delegate?.requestDidFinish(self)
    }

    /// Tells the delegate the request failed.
    func fail(_ error: any Error) {
        delegate?.request(self, didFailWithError: error)
    }
}

/// A receipt refresh that goes nowhere: the test ends it with `finish(writing:to:)` or `fail(_:)`. `@unchecked Sendable`
/// restated for the same reason as ``ProductsRequestDouble``.
final class ReceiptRefreshRequestDouble: SKReceiptRefreshRequest, @unchecked Sendable {
    private(set) var startCount = 0

    override func start() { startCount += 1 }

    /// Writes `data` where the App Store would put the receipt (nothing when `data` is `nil`), then tells the delegate.
    func finish(writing data: Data?, to url: URL) throws {
        if let data { try data.write(to: url) }
        delegate?.requestDidFinish(self)
    }

    /// Tells the delegate the refresh failed.
    func fail(_ error: any Error) {
        delegate?.request(self, didFailWithError: error)
    }
}
