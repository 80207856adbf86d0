// Command hello is the hello-world baseline of `make bench`: an
// aws-lambda-go function that answers at once, built with the functions'
// flags, so a function's cold start can be read against what any Go Lambda
// costs (the process, the Go runtime, the Runtime API loop).
package main

import "github.com/aws/aws-lambda-go/lambda"

func main() {
	lambda.Start(func() (string, error) { return "hello", nil })
}
