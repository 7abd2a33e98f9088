// Intentionally empty: the C++ headers are included by CWebRTCShim only.
