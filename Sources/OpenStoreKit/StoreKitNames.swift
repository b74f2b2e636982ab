// Spellings StoreKit code writes that have no other home: the iOS 18.4 top-level names of the subscription types,
// and the module-qualified names (`StoreKit.Product`) that code written against Apple's module uses.

/// The subscription information of a product (iOS 18.4's top-level name for ``Product/SubscriptionInfo``).
public typealias SubscriptionInfo = Product.SubscriptionInfo
/// A subscription's length (iOS 18.4's top-level name for ``Product/SubscriptionPeriod``).
public typealias SubscriptionPeriod = Product.SubscriptionPeriod
/// A subscription's status (iOS 18.4's top-level name for ``Product/SubscriptionInfo/Status``).
public typealias SubscriptionStatus = Product.SubscriptionInfo.Status
/// A subscription's renewal information (iOS 18.4's top-level name for ``Product/SubscriptionInfo/RenewalInfo``).
public typealias SubscriptionRenewalInfo = Product.SubscriptionInfo.RenewalInfo
/// A subscription's renewal state (iOS 18.4's top-level name for ``Product/SubscriptionInfo/RenewalState``).
public typealias SubscriptionRenewalState = Product.SubscriptionInfo.RenewalState

/// Apple's module name as a namespace, so code that writes module-qualified names — `StoreKit.Product`,
/// `StoreKit.Transaction`, as libraries do to tell StoreKit's types from their own — compiles with
/// `import OpenStoreKit` unchanged. Each member is the type of the same name in this module.
public enum StoreKit {
    /// ``OpenStoreKit/AppStore``.
    public typealias AppStore = OpenStoreKit.AppStore
    /// ``OpenStoreKit/AppTransaction``.
    public typealias AppTransaction = OpenStoreKit.AppTransaction
    /// ``OpenStoreKit/Message``.
    public typealias Message = OpenStoreKit.Message
    /// ``OpenStoreKit/Product``.
    public typealias Product = OpenStoreKit.Product
    /// ``OpenStoreKit/PurchaseIntent``.
    public typealias PurchaseIntent = OpenStoreKit.PurchaseIntent
    /// ``OpenStoreKit/Storefront``.
    public typealias Storefront = OpenStoreKit.Storefront
    /// ``OpenStoreKit/StoreKitError``.
    public typealias StoreKitError = OpenStoreKit.StoreKitError
    /// ``OpenStoreKit/Transaction``.
    public typealias Transaction = OpenStoreKit.Transaction
    /// ``OpenStoreKit/VerificationResult``.
    public typealias VerificationResult<SignedType> = OpenStoreKit.VerificationResult<SignedType>
    /// ``OpenStoreKit/SubscriptionInfo``.
    public typealias SubscriptionInfo = OpenStoreKit.SubscriptionInfo
    /// ``OpenStoreKit/SubscriptionPeriod``.
    public typealias SubscriptionPeriod = OpenStoreKit.SubscriptionPeriod
    /// ``OpenStoreKit/SubscriptionStatus``.
    public typealias SubscriptionStatus = OpenStoreKit.SubscriptionStatus
    /// ``OpenStoreKit/SubscriptionRenewalInfo``.
    public typealias SubscriptionRenewalInfo = OpenStoreKit.SubscriptionRenewalInfo
    /// ``OpenStoreKit/SubscriptionRenewalState``.
    public typealias SubscriptionRenewalState = OpenStoreKit.SubscriptionRenewalState
    /// ``OpenStoreKit/SKDownload``.
    public typealias SKDownload = OpenStoreKit.SKDownload
    /// ``OpenStoreKit/SKDownloadState``.
    public typealias SKDownloadState = OpenStoreKit.SKDownloadState
    /// ``OpenStoreKit/SKError``.
    public typealias SKError = OpenStoreKit.SKError
    /// ``OpenStoreKit/SKMutablePayment``.
    public typealias SKMutablePayment = OpenStoreKit.SKMutablePayment
    /// ``OpenStoreKit/SKPayment``.
    public typealias SKPayment = OpenStoreKit.SKPayment
    /// ``OpenStoreKit/SKPaymentDiscount``.
    public typealias SKPaymentDiscount = OpenStoreKit.SKPaymentDiscount
    /// ``OpenStoreKit/SKPaymentQueue``.
    public typealias SKPaymentQueue = OpenStoreKit.SKPaymentQueue
    /// ``OpenStoreKit/SKPaymentQueueDelegate``.
    public typealias SKPaymentQueueDelegate = OpenStoreKit.SKPaymentQueueDelegate
    /// ``OpenStoreKit/SKPaymentTransaction``.
    public typealias SKPaymentTransaction = OpenStoreKit.SKPaymentTransaction
    /// ``OpenStoreKit/SKPaymentTransactionObserver``.
    public typealias SKPaymentTransactionObserver = OpenStoreKit.SKPaymentTransactionObserver
    /// ``OpenStoreKit/SKPaymentTransactionState``.
    public typealias SKPaymentTransactionState = OpenStoreKit.SKPaymentTransactionState
    /// ``OpenStoreKit/SKProduct``.
    public typealias SKProduct = OpenStoreKit.SKProduct
    /// ``OpenStoreKit/SKProductDiscount``.
    public typealias SKProductDiscount = OpenStoreKit.SKProductDiscount
    /// ``OpenStoreKit/SKProductStorePromotionController``.
    public typealias SKProductStorePromotionController = OpenStoreKit.SKProductStorePromotionController
    /// ``OpenStoreKit/SKProductSubscriptionPeriod``.
    public typealias SKProductSubscriptionPeriod = OpenStoreKit.SKProductSubscriptionPeriod
    /// ``OpenStoreKit/SKProductsRequest``.
    public typealias SKProductsRequest = OpenStoreKit.SKProductsRequest
    /// ``OpenStoreKit/SKProductsRequestDelegate``.
    public typealias SKProductsRequestDelegate = OpenStoreKit.SKProductsRequestDelegate
    /// ``OpenStoreKit/SKProductsResponse``.
    public typealias SKProductsResponse = OpenStoreKit.SKProductsResponse
    /// ``OpenStoreKit/SKReceiptRefreshRequest``.
    public typealias SKReceiptRefreshRequest = OpenStoreKit.SKReceiptRefreshRequest
    /// ``OpenStoreKit/SKRequest``.
    public typealias SKRequest = OpenStoreKit.SKRequest
    /// ``OpenStoreKit/SKRequestDelegate``.
    public typealias SKRequestDelegate = OpenStoreKit.SKRequestDelegate
    /// ``OpenStoreKit/SKStorefront``.
    public typealias SKStorefront = OpenStoreKit.SKStorefront
}
