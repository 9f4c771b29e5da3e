package com.example.shop;

import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/** {@code POST /orders}: places an order; answers the id of its outbox message. */
@RestController
public class OrdersController {

  private final OrderService orders;

  public OrdersController(OrderService orders) {
    this.orders = orders;
  }

  @PostMapping("/orders")
  @ResponseStatus(HttpStatus.CREATED)
  public Map<String, String> place(
      @RequestBody OrderPlaced order,
      @RequestParam(name = "reject", defaultValue = "false") boolean reject) {
    return Map.of("messageId", orders.place(order, reject));
  }
}
