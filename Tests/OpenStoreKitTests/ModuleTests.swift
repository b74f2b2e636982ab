import OpenStoreKit
import Testing

/// `import OpenStoreKit` behaves as `import StoreKit` does. This file imports nothing else on purpose.
@Suite("The module, as StoreKit code imports it")
struct ModuleTests {
    @Test("import OpenStoreKit brings Foundation, as import StoreKit does: Date, NSError, NumberFormatter need no import")
    func reexportsFoundation() {
        let formatter = NumberFormatter()
        formatter.numberStyle = .currency
        formatter.locale = Locale(identifier: "en_US")
        #expect(formatter.string(from: NSNumber(value: 0.99)) == "$0.99")
        let error = NSError(domain: SKErrorDomain, code: SKError.Code.paymentCancelled.rawValue)
        #expect(SKError(_nsError: error).code == .paymentCancelled)
        #expect(Date(timeIntervalSince1970: 0) < Date())
    }

    @Test("SKError bridges to and from NSError as Apple's does")
    func errorBridging() {
        let error = SKError(.storeProductNotAvailable, userInfo: [NSLocalizedDescriptionKey: "Not in this storefront."])
        let bridged = error._nsError
        #expect(bridged.domain == SKErrorDomain)
        #expect(bridged.code == SKError.Code.storeProductNotAvailable.rawValue)
        #expect(bridged.localizedDescription == "Not in this storefront.")
        #expect((error as NSError).domain == SKErrorDomain)
        #expect((error as NSError).code == 5)
        let back = SKError(_nsError: bridged)
        #expect(back == error)
        #expect(back.userInfo[NSLocalizedDescriptionKey] as? String == "Not in this storefront.")
        #expect(SKError.errorDomain == "SKErrorDomain")
    }

    @Test("SKError(_nsError:) wraps an error of another domain whole, as Apple's bridged error does; as? SKError still refuses it")
    func foreignErrorsAreWrapped() {
        let foreign = NSError(domain: NSURLErrorDomain, code: 2, userInfo: [NSLocalizedDescriptionKey: "The network connection was lost."])
        let wrapped = SKError(_nsError: foreign)
        #expect(wrapped._nsError.domain == NSURLErrorDomain)
        #expect(wrapped._nsError.code == 2)
        #expect(wrapped.code == .paymentCancelled, "code 2 read as StoreKit's")
        #expect(wrapped.localizedDescription == "The network connection was lost.")
        #expect((foreign as any Error) as? SKError == nil)
    }
}
