#if canImport(StoreKit)
public import StoreKit
#else
public import OpenStoreKit
#endif

extension ReceiptReader {
    /// Where the App Store keeps the app's receipt on this device, or will write it with the first purchase.
    ///
    /// The one line that differs between Apple's platforms and Linux, where `Bundle.main.appStoreReceiptURL` is
    /// always `nil` and the payment queue knows the receipt's place instead (OpenStoreKit's "Porting StoreKit code to
    /// Linux").
    public static var appStoreReceiptURL: URL? {
        #if canImport(StoreKit)
        Bundle.main.appStoreReceiptURL
        #else
        SKPaymentQueue.default().appStoreReceiptURL
        #endif
    }
}
