"""The emulated lab: namespaces, veth, a bridge, routes, NAT and shaping on one machine."""
