"""placeholder"""
def main(argv=None) -> int:
    print("hi")
    return 0
