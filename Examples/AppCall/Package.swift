// swift-tools-version:6.0
import PackageDescription

// App code as an app would hold it: a package of its own that depends on EchoLab by path and
// imports one module, `EchoLab`. `name:` gives the dependency its name whatever the checkout's
// folder is called (a path dependency is otherwise known by its folder's name).
//
//     cd Examples/AppCall && swift build && swift run
let package = Package(
    name: "AppCall",
    dependencies: [
        .package(name: "EchoLab", path: "../.."),
    ],
    targets: [
        .executableTarget(name: "AppCall", dependencies: [.product(name: "EchoLab", package: "EchoLab")]),
    ]
)
