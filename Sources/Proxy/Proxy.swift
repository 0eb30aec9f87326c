// Proxy module
