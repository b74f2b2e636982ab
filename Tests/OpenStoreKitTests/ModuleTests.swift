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
}
