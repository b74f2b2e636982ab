// Apple's `import StoreKit` brings Foundation with it, and StoreKit code relies on that: files that import only
// StoreKit use `Date`, `NSError`, `NumberFormatter`. `import OpenStoreKit` does the same, so those files compile
// with only the import swapped. `@_exported` is Swift's only way to re-export a module.
@_exported public import Foundation
