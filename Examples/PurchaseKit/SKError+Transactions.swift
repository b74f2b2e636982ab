#if canImport(StoreKit)
import StoreKit
#else
import OpenStoreKit
#endif

extension SKError {
    /// The StoreKit error a failed transaction or request reports, whatever form it takes.
    ///
    /// StoreKit hands over `SKError`s, but test doubles and older code often build an `NSError` of `SKErrorDomain`
    /// instead. Going through `NSError` reads the domain and code of both. An error of another domain (a network
    /// error, say) becomes `.unknown`, keeping the original as the underlying error.
    static func fromStoreKit(_ error: (any Error)?) -> SKError {
        guard let error else {
            return SKError(.unknown, userInfo: [NSLocalizedDescriptionKey: "The App Store reported a failure without an error."])
        }
        if let storeKitError = error as? SKError { return storeKitError }
        let nsError = error as NSError
        guard nsError.domain == SKErrorDomain else {
            return SKError(.unknown, userInfo: [
                NSUnderlyingErrorKey: nsError,
                NSLocalizedDescriptionKey: nsError.localizedDescription,
            ])
        }
        return SKError(_nsError: nsError)
    }
}
